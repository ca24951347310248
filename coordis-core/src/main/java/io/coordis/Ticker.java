package io.coordis;

/**
 * A monotonic time source in nanoseconds. Every deadline Coordis computes (lock validity, renewal,
 * waiting) reads this ticker, so tests can step time instead of sleeping. The default is
 * {@link System#nanoTime()}. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Ticker {

    /**
     * Nanoseconds from an arbitrary fixed origin; only differences are meaningful.
     *
     * @return the current reading, in nanoseconds
     */
    long read();

    /**
     * The system's monotonic clock.
     *
     * @return a ticker reading {@link System#nanoTime()}
     */
    static Ticker system() {
        return System::nanoTime;
    }
}
