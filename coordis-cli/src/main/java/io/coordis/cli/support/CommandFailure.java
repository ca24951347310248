package io.coordis.cli.support;

/** A failure a command has already explained in one line, with the exit status it calls for. */
public final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    public CommandFailure(int exitCode, String message) {
        this(exitCode, message, null);
    }

    public CommandFailure(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
