package io.coordis.internal;

import io.coordis.CoordisException;

/**
 * A command refused because this client closed its connection ({@code Coordis.close()}): not a failure of Redis, so
 * work still in flight at the close (a lease's renewal, a queue's sweep) ends quietly on it instead of warning.
 */
public final class ClosedByClientException extends CoordisException {
    private static final long serialVersionUID = 1L;

    public ClosedByClientException(String address) {
        super(address, "the connection to Redis at " + address + " is closed", null);
    }

    /** Whether {@code failure} or one of its causes says this client closed the connection. */
    public static boolean is(Throwable failure) {
        for (Throwable f = failure; f != null; f = f.getCause() == f ? null : f.getCause()) {
            if (f instanceof ClosedByClientException) {
                return true;
            }
        }
        return false;
    }
}
