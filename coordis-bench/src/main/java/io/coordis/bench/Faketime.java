package io.coordis.bench;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Launch commands that run a JVM with its wall clock moved by {@code faketime} (Debian package {@code faketime}):
 * {@code System.currentTimeMillis()} is off by the skew, while monotonic time ({@code System.nanoTime()}) stays
 * real and timed waits keep their length ({@code FAKETIME_DONT_FAKE_MONOTONIC=1},
 * {@code FAKETIME_FORCE_MONOTONIC_FIX=0}; without the latter a JVM's timed waits return at once).
 */
final class Faketime {
    /** Why a scenario that skews clocks cannot run here. */
    static final String MISSING = "faketime is not installed (Debian package faketime), so clients' clocks cannot be skewed";

    private Faketime() {
    }

    /** The {@code faketime} executable on the {@code PATH}, if any. */
    static Optional<Path> binary() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "faketime");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * The words to put before {@code java ...} so that its clock runs {@code skew} ahead (negative: behind).
     *
     * @throws IllegalStateException when {@code faketime} is not installed
     */
    static List<String> launcher(Duration skew) {
        Path faketime = binary().orElseThrow(() -> new IllegalStateException(MISSING));
        return List.of("env", "FAKETIME_DONT_FAKE_MONOTONIC=1", "FAKETIME_FORCE_MONOTONIC_FIX=0", faketime.toString(),
                "-f", spec(skew));
    }

    /** {@code +60m}, {@code -60m}: the skew in faketime's offset form, in whole minutes. */
    static String spec(Duration skew) {
        if (skew.isZero() || skew.toSeconds() % 60 != 0) {
            throw new IllegalArgumentException("a clock skew is a non-zero number of whole minutes, got " + skew);
        }
        return (skew.isNegative() ? "-" : "+") + skew.abs().toMinutes() + "m";
    }
}
