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
        return "coordis " + version() + " (Java " + javaVersion() + ")";
    }

    /**
     * The project version written into the jar at build time: from the jar's manifest, which the JVM has read already,
     * else (classes run from a build's directories) from a resource; {@code unknown} when neither has it.
     */
    public static String version() {
        String fromManifest = Program.class.getPackage().getImplementationVersion();
        if (fromManifest != null) {
            return fromManifest;
        }
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

    /**
     * The running Java's version as {@link Runtime#version()} writes it, taken from the property that holds it already:
     * writing it again starts streams and lambdas, and so the JVM's method-handle machinery, which nothing else in
     * {@code --version} needs.
     */
    private static String javaVersion() {
        String property = System.getProperty("java.runtime.version");
        return property != null ? property : Runtime.version().toString();
    }
}
