package io.coordis.bench;

/**
 * The rate-limiter call the rate-limit scenarios make, so one driver runs every client the same way: one permit of
 * a named limiter, now or not at all. Every name is limited by the rate the implementation was made with.
 * Implementations are thread-safe.
 */
interface Limiting extends AutoCloseable {

    /** Takes one permit of limiter {@code name} if one is due now, without waiting; whether it was granted. */
    boolean tryAcquire(String name);

    @Override
    void close();
}
