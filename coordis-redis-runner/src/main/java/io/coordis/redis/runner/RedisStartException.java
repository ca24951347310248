package io.coordis.redis.runner;

/**
 * Thrown when a {@code redis-server} does not come up: it exited, refused the probe, or did not answer within the
 * start timeout. The message holds the command line and the configuration (passwords masked) and the tails of the
 * server's log and output; {@link #logs()} gives those tails alone, for callers that recognise a cause in them.
 * Immutable.
 */
public final class RedisStartException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    /** Whether the server reported its port taken. */
    private final boolean addressInUse;
    /** The tail of the server's log file, then the tail of what it wrote to stdout and stderr. */
    private final String logs;

    RedisStartException(String message, boolean addressInUse, String logs) {
        super(message);
        this.addressInUse = addressInUse;
        this.logs = logs;
    }

    /**
     * The tail of the server's log file, then the tail of what it wrote to stdout and stderr.
     *
     * @return the tails of the log and the output
     */
    public String logs() {
        return logs;
    }

    /** True if the server reported its port taken ("Address already in use"). */
    boolean addressInUse() {
        return addressInUse;
    }
}
