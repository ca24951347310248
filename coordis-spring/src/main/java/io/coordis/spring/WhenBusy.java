package io.coordis.spring;

/**
 * What a {@link Locked} method does when another holder has its lock, and what a {@link RateLimited} method does
 * when its limiter grants no permit.
 */
public enum WhenBusy {
    /**
     * Not stated: a {@code @Locked} void method skips, one returning a value must state {@link #SKIP} or
     * {@link #WAIT}; a {@code @RateLimited} method throws {@link RateLimitedException}.
     */
    UNSTATED,
    /** Return without running: {@code null}, or {@code Optional.empty()} for a method returning {@code Optional}. */
    SKIP,
    /**
     * Wait for the lock (up to {@link Locked#maxWait()}) or the permit (up to {@link RateLimited#maxWait()}), else as
     * long as it takes, then run; a bounded wait that runs out throws.
     */
    WAIT
}
