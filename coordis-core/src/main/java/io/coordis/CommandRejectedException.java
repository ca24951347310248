package io.coordis;

/**
 * Redis received the command and refused it: out of memory ({@code OOM}, see {@code maxmemory}), a
 * read-only replica ({@code READONLY}, the URL points at a replica), or another server error. The message
 * carries the server's own words.
 */
public final class CommandRejectedException extends CoordisException {
    private static final long serialVersionUID = 1L;

    public CommandRejectedException(String node, String message, Throwable cause) {
        super(node, message, cause);
    }
}
