package io.coordis.cli.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * What this program is: its version, written into the jar at build time, and the class a new JVM starts to run
 * {@code coordis} (the demo's second JVM). It refers to no picocli type, so that {@code coordis --version} loads
 * almost nothing. Thread-safe: it keeps no state.
 */
public final class Program {
    /** The entry point's class name, {@code io.coordis.cli.Main}: given as a name, since support sits below it. */
    public static final String MAIN_CLASS = "io.coordis.cli.Main";

    private Program() {
    }

    /** What {@code --version} prints: the project version written into the jar at build time, and the Java version. */
    public static String versionLine() {
        return "coordis " + version() + " (Java " + Runtime.version() + ")";
    }

    /** The project version written into the jar at build time; {@code unknown} when that was not done. */
    public static String version() {
        Properties p = new Properties();
        try (InputStream in = Program.class.getResourceAsStream("/io/coordis/cli/version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the version of coordis", e);
        }
        return p.getProperty("version", "unknown");
    }
}
