package io.coordis;

/**
 * A monotonic time source in nanoseconds. Every deadline a client computes (lock validity, renewal, waiting) is read
 * from this ticker. The client's timer, though, waits in real time: a delayed task (a renewal, a command timeout, a
 * retry) runs once its delay has passed on the system's clock, whatever this ticker says. A ticker stepped ahead
 * makes deadlines read as passed at their next check but fires no timer sooner, so it does not let a test skip a
 * wait. The default is {@link System#nanoTime()}. Implementations must be thread-safe.
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
