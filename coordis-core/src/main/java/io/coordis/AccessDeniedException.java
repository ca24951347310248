package io.coordis;

/**
 * Redis refused the credentials (wrong user or password, authentication required) or the ACL user lacks
 * a permission Coordis needs (NOPERM). Fix the URL or the ACL rules; retrying will not help.
 * {@link #reason()} tells which: a command the user may not run is a setup error, a key or channel outside
 * the user's patterns is usually another tenant's object.
 */
public final class AccessDeniedException extends CoordisException {
    private static final long serialVersionUID = 1L;

    /** What Redis refused. */
    public enum Reason {
        /** the user name or password (or none given where one is required) */
        CREDENTIALS,
        /** a command (or subcommand) the user may not run */
        COMMAND,
        /** a key outside the user's key patterns */
        KEY,
        /** a channel outside the user's channel patterns */
        CHANNEL,
        /** Redis's message did not say */
        OTHER
    }

    private final Reason reason;

    public AccessDeniedException(String node, String message, Throwable cause) {
        this(node, Reason.OTHER, message, cause);
    }

    public AccessDeniedException(String node, Reason reason, String message, Throwable cause) {
        super(node, message, cause);
        this.reason = reason;
    }

    /** What Redis refused. */
    public Reason reason() {
        return reason;
    }
}
