package io.coordis;

/**
 * A monotonic time source in nanoseconds. Every deadline Coordis computes (lock validity, renewal,
 * waiting) reads this ticker, so tests can step time instead of sleeping. The default is
 * {@link System#nanoTime()}. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {

    /** Nanoseconds from an arbitrary fixed origin; only differences are meaningful. */
    long read();

    /** The system's monotonic clock. */
    static Ticker system() {
        return System::nanoTime;
    }
}
