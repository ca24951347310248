package io.coordis.cli;

import io.coordis.cli.support.ExitCodes;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs {@code coordis} in the test's JVM with captured output, for parsing and usage tests. */
public final class InProcess {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final InputStream in;

    /** Standard input that fails the test if a command reads it. */
    public InProcess() {
        this(new InputStream() {
            @Override
            public int read() {
                throw new AssertionError("standard input was read");
            }
        });
    }

    public InProcess(InputStream in) {
        this.in = in;
    }

    public int run(String... args) {
        return run(Map.of(), args);
    }

    public int run(Map<String, String> env, String... args) {
        out.reset();
        err.reset();
        Map<String, String> withPrefix = new java.util.HashMap<>();
        withPrefix.put(CoordisCommand.KEY_PREFIX_ENV, io.coordis.testkit.Prefixed.prefix()); // the test run's
        withPrefix.putAll(env);
        return Main.run(args, in, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), withPrefix);
    }

    public String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    public String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /** A usage error: one line saying what is wrong, one pointing to --help, nothing on stdout. */
    public void assertUsageError(int status, String expected, String helpFor) {
        assertThat(status).as(err()).isEqualTo(ExitCodes.USAGE);
        assertThat(out()).isEmpty();
        assertThat(err().lines()).as(err()).hasSize(2);
        assertThat(err().lines().findFirst().orElseThrow()).startsWith("coordis: ").contains(expected);
        assertThat(err()).endsWith("Try '" + helpFor + " --help' for more information." + System.lineSeparator())
                .doesNotContain("\tat ", "Exception");
    }
}
