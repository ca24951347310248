package io.coordis;

import java.util.Optional;

/**
 * Base of the unchecked exceptions Coordis throws when Redis cannot do what was asked: the node is
 * unreachable or too slow, the credentials or permissions are wrong, a key holds the wrong type, or the
 * server refused the command (out of memory, read-only replica, ...).
 *
 * <p>Outcomes such as "the lock is busy" or "timed out waiting" are never exceptions; they are return
 * values. Messages name the node ({@code host:port}) and the cause, and never contain a password.
 */
public class CoordisException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String node;

    public CoordisException(String node, String message, Throwable cause) {
        super(message, cause);
        this.node = node;
    }

    /** The Redis node ({@code host:port}) the failure came from, if one is known. */
    public Optional<String> node() {
        return Optional.ofNullable(node);
    }
}
