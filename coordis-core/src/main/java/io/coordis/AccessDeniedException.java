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

    /** What Redis refused; {@link Reason#OTHER} when its message did not say. */
    private final Reason reason;

    /**
     * A refusal whose message does not say what was refused ({@link Reason#OTHER}).
     *
     * @param node    the node ({@code host:port}) that refused; null when unknown
     * @param message what was refused, naming the object
     * @param cause   Redis's error; null when there is none
     */
    public AccessDeniedException(String node, String message, Throwable cause) {
        this(node, Reason.OTHER, message, cause);
    }

    /**
     * A refusal of {@code reason}.
     *
     * @param node    the node ({@code host:port}) that refused; null when unknown
     * @param reason  what Redis refused
     * @param message what was refused, naming the object
     * @param cause   Redis's error; null when there is none
     */
    public AccessDeniedException(String node, Reason reason, String message, Throwable cause) {
        super(node, message, cause);
        this.reason = reason;
    }

    /**
     * What Redis refused.
     *
     * @return the credentials, a command, a key, a channel, or {@link Reason#OTHER}
     */
    public Reason reason() {
        return reason;
    }
}
