package io.coordis.lock;

/**
 * One acquisition of permits of a {@link Semaphore}: a {@link Lease} on them (renewed, fenced, lost when
 * renewal fails, released by closing it) that counts how many permits it holds. Its {@link #token()} names it
 * among the semaphore's holders at Redis; its {@link #fencingToken()} grows with every acquisition of the
 * semaphore, so a resource can refuse a holder that outlived its permit. Thread-safe.
 */
public interface Permit extends Lease {

    /**
     * How many of the semaphore's permits this acquisition holds (at least 1).
     *
     * @return the number of permits held
     */
    int permits();
}
