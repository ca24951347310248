package io.coordis.spring;

import io.coordis.DurationText;

import java.time.Duration;

/** Thrown by a {@link Locked} method with {@link WhenBusy#WAIT} whose bounded wait ran out: the method did not run. */
public final class LockBusyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The lock's name, as evaluated for this call. */
    private final String lockName;

    LockBusyException(String lockName, Duration wait, String method) {
        super("lock '" + lockName + "' was still busy after waiting " + DurationText.format(wait)
                + "; " + method + " did not run");
        this.lockName = lockName;
    }

    /**
     * The lock's name, as evaluated for this call.
     *
     * @return the name
     */
    public String lockName() {
        return lockName;
    }
}
