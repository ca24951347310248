package io.coordis;

/**
 * Redis refused the credentials (wrong user or password, authentication required) or the ACL user lacks
 * a permission Coordis needs (NOPERM). Fix the URL or the ACL rules; retrying will not help.
 */
public final class AccessDeniedException extends CoordisException {
    private static final long serialVersionUID = 1L;

    public AccessDeniedException(String node, String message, Throwable cause) {
        super(node, message, cause);
    }
}
