package io.coordis.spring;

/** What a {@link Locked} method does when another holder has its lock. */
public enum WhenBusy {
    /** Not stated: void methods skip; a method returning a value must state {@link #SKIP} or {@link #WAIT}. */
    UNSTATED,
    /** Return without running: {@code null}, or {@code Optional.empty()} for a method returning {@code Optional}. */
    SKIP,
    /** Wait for the lock (up to {@link Locked#maxWait()}, else as long as it takes), then run. */
    WAIT
}
