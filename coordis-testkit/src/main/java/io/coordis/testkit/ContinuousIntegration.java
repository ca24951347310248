package io.coordis.testkit;

import java.util.Locale;

/**
 * Whether the tests run in continuous integration, where what a test needs (a browser, namespaces, a TLS-capable
 * {@code redis-server}, other languages' clients) is installed: there a test that finds it missing fails, elsewhere
 * it is skipped. The one reading of the {@code CI} environment variable, which CI services set to {@code true}
 * (some to {@code 1}): set to anything but blank, {@code false} or {@code 0}.
 */
public final class ContinuousIntegration {
    /** The environment variable that says so. */
    public static final String ENV = "CI";

    private static final boolean RUNNING = running(System.getenv(ENV));

    private ContinuousIntegration() {
    }

    /**
     * Whether this run is in CI.
     *
     * @return {@code true} in CI
     */
    public static boolean running() {
        return RUNNING;
    }

    /** Whether {@code value} of {@code CI} means a CI run; {@code null} when unset. */
    static boolean running(String value) {
        if (value == null || value.isBlank()) {
            return false;
        }
        String v = value.strip().toLowerCase(Locale.ROOT);
        return !v.equals("false") && !v.equals("0");
    }
}
