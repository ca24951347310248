package io.coordis.internal;

import io.coordis.AccessDeniedException;
import io.coordis.CommandRejectedException;
import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.WrongTypeException;

/**
 * Names the object an operation failed on. The Redis layer knows the node and the cause ("Redis at
 * 10.0.0.5:6379 is out of memory"), not which lock or queue the command was for; each primitive puts that in
 * front as the failure leaves it: {@code lock 'orders:42': Redis at 10.0.0.5:6379 is out of memory (...)}.
 */
public final class Failures {
    private Failures() {
    }

    /**
     * {@code failure} of the same type, node and details, its message starting with {@code object}
     * ({@code "lock 'orders'"}), and {@code failure} as its cause. A failure that starts with it already is
     * returned as it is, and so is a kind that names its object itself (such as Redlock's quorum failure).
     */
    public static CoordisException about(String object, CoordisException failure) {
        String prefix = object + ": ";
        String message = failure.getMessage() == null ? "" : failure.getMessage();
        if (message.startsWith(prefix)) {
            return failure;
        }
        String node = failure.node().orElse(null);
        if (failure instanceof NodeUnavailableException n) {
            return new NodeUnavailableException(node, prefix + message, failure, n.timedOut(), n.isTransient());
        }
        if (failure instanceof CommandRejectedException) {
            return new CommandRejectedException(node, prefix + message, failure, failure.isTransient());
        }
        if (failure instanceof WrongTypeException w) {
            return new WrongTypeException(node, w.key(), w.actualType(), prefix + message, failure);
        }
        if (failure instanceof AccessDeniedException a) {
            return new AccessDeniedException(node, a.reason(), prefix + message, failure);
        }
        if (failure.getClass() == CoordisException.class || failure instanceof ClosedByClientException) {
            return new CoordisException(node, prefix + message, failure);
        }
        return failure;
    }

    /** {@code what 'name'}, the way messages name an object. */
    public static String object(String what, String name) {
        return what + " '" + name + "'";
    }
}
