package io.coordis.cli;

import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code coordis demo} in its own JVM: with the redis-server it starts itself, and with a given one. */
class DemoIT {
    private static final Pattern ACQUIRED = Pattern.compile("worker-\\d+ acquired demo:printer \\(fencing token (\\d+)\\)");

    private static List<Long> tokens(String stdout) {
        List<Long> tokens = new ArrayList<>();
        Matcher m = ACQUIRED.matcher(stdout);
        while (m.find()) {
            tokens.add(Long.parseLong(m.group(1)));
        }
        return tokens;
    }

    private static void assertStrictlyIncreasing(List<Long> tokens, int count) {
        assertThat(tokens).hasSize(count);
        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token %d of %s", i, tokens).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void startsItsOwnRedisAndShowsIncreasingTokens() {
        long started = System.nanoTime();
        try (CliProcess cli = CliProcess.start("demo")) {
            assertThat(cli.exitCode()).as(cli.stderr()).isZero();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
            assertThat(cli.stdout()).startsWith("started redis-server ")
                    .contains("worker-1 released demo:printer", "one holder at a time", "stopped redis-server");
            assertStrictlyIncreasing(tokens(cli.stdout()), 4 * 3);
            assertThat(cli.stderr()).isEmpty();
        }
    }

    @Test
    void usesTheGivenRedis() {
        try (RedisServer server = RedisServer.start();
             CliProcess cli = CliProcess.start("demo", "--url", server.uri(), "--workers", "3", "--rounds", "2")) {
            assertThat(cli.exitCode()).as(cli.stderr()).isZero();
            assertThat(cli.stdout()).startsWith("using Redis at " + server.uri());
            assertStrictlyIncreasing(tokens(cli.stdout()), 3 * 2);
            assertThat(server.command("GET", "{demo:printer}:fence")).isEqualTo("6");
        }
    }

    @Test
    void theFatJarRunsOnItsOwn() {
        Path jar = CliProcess.fatJar();
        assumeTrue(jar != null && Files.isRegularFile(jar), "the fat jar is built by 'mvn package'");
        try (CliProcess version = CliProcess.startJar(jar, "--version")) {
            assertThat(version.exitCode()).isZero();
            assertThat(version.stdout()).startsWith("coordis 0.");
        }
        try (CliProcess demo = CliProcess.startJar(jar, "demo", "--workers", "2", "--rounds", "2")) {
            assertThat(demo.exitCode()).as(demo.stderr()).isZero();
            assertStrictlyIncreasing(tokens(demo.stdout()), 2 * 2);
        }
    }
}
