package io.coordis.testkit;

/**
 * An error reply ({@code -ERR ...}, {@code -NOAUTH ...}, ...) returned by a Redis server.
 *
 * <p>The message is the error text exactly as the server sent it, without the leading {@code -}.
 */
public final class RespException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message error text as sent by the server, without the leading {@code -}
     */
    public RespException(String message) {
        super(message);
    }

    /**
     * The first word of the error, e.g. {@code "NOAUTH"}, {@code "WRONGPASS"} or {@code "ERR"}.
     *
     * @return the error code prefix
     */
    public String code() {
        String m = getMessage();
        int space = m.indexOf(' ');
        return space < 0 ? m : m.substring(0, space);
    }
}
