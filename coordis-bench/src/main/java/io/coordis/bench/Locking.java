package io.coordis.bench;

/**
 * The lock calls the lock scenarios make, so one driver runs every client the same way. A handle is
 * whatever the client needs to release (a lease, a token, a lock object); {@code null} means "busy".
 * Implementations are thread-safe.
 */
interface Locking extends AutoCloseable {

    /** Takes lock {@code name} if it is free now, without waiting; {@code null} when it is busy. */
    Object tryLock(String name);

    /** Takes lock {@code name}, waiting as long as it takes. */
    Object lock(String name) throws InterruptedException;

    /**
     * {@link #lock} for a client without a way to wait for a release: {@link #tryLock} again at once until it
     * succeeds (a spin), or until the thread is interrupted.
     */
    static Object spin(Locking locking, String name) throws InterruptedException {
        while (true) {
            Object held = locking.tryLock(name);
            if (held != null) {
                return held;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }

    /** Releases what {@link #tryLock} or {@link #lock} returned. */
    void unlock(Object handle);

    @Override
    void close();
}
