package io.coordis.cli;

/** A failure a command has already explained in one line, with the exit status it calls for. */
final class CommandFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    CommandFailure(int exitCode, String message) {
        this(exitCode, message, null);
    }

    CommandFailure(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
