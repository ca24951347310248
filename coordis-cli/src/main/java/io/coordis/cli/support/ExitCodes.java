package io.coordis.cli.support;

import io.coordis.AccessDeniedException;
import io.coordis.NodeUnavailableException;
import io.coordis.WrongTypeException;
import io.coordis.lock.QuorumUnavailableException;
import picocli.CommandLine.ParameterException;

/**
 * Exit statuses of the {@code coordis} command. Failures use the BSD {@code sysexits.h} values so that
 * scripts can tell bad usage from Redis trouble; {@code lock} otherwise exits with its command's status.
 */
public final class ExitCodes {
    public static final int OK = 0;
    /** {@code lock}: the lock was not acquired in time (changed with {@code -E}). */
    public static final int NOT_ACQUIRED = 1;
    /** {@code elect}: not elected within {@code --wait}. */
    public static final int NOT_ELECTED = 1;
    /** {@code leader}: nobody leads the election. */
    public static final int NO_LEADER = 1;
    /** {@code wait}: no signal arrived within {@code --timeout}. */
    public static final int NO_SIGNAL = 1;
    /** {@code latch await}: the latch did not open within {@code --wait}. */
    public static final int NOT_OPEN = 1;
    /** EX_USAGE: bad arguments or options. */
    public static final int USAGE = 64;
    /** EX_DATAERR: a key holds a value of another type than Coordis expects. */
    public static final int DATA_ERROR = 65;
    /**
     * EX_UNAVAILABLE: Redis cannot be reached, did not answer in time, or cannot serve now; for Redlock,
     * too few nodes could vote (down, too slow, or refused by the restart guard).
     */
    public static final int UNAVAILABLE = 69;
    /** EX_SOFTWARE: any other failure. */
    public static final int SOFTWARE = 70;
    /** EX_TEMPFAIL: the lock (or, for {@code elect}, the leadership) was lost while the command ran; it was stopped. */
    public static final int LOCK_LOST = 75;
    /** EX_NOPERM: Redis refused the credentials or the ACL user lacks a permission. */
    public static final int NO_PERMISSION = 77;
    /** As in sh(1): the command was found but cannot be executed. */
    public static final int CANNOT_EXECUTE = 126;
    /** As in sh(1): the command was not found. */
    public static final int NOT_FOUND = 127;

    private ExitCodes() {
    }

    /** The status for a failure that ended a command. */
    static int of(Throwable failure) {
        if (failure instanceof CommandFailure f) {
            return f.exitCode();
        }
        if (failure instanceof ParameterException) {
            return USAGE;
        }
        if (failure instanceof IllegalArgumentException) {
            // the library refusing an argument the user gave (a name too long, a TTL out of range)
            return USAGE;
        }
        if (failure instanceof NodeUnavailableException || failure instanceof QuorumUnavailableException) {
            return UNAVAILABLE;
        }
        if (failure instanceof AccessDeniedException) {
            return NO_PERMISSION;
        }
        if (failure instanceof WrongTypeException) {
            return DATA_ERROR;
        }
        return SOFTWARE; // any other CoordisException (e.g. a command Redis rejected) and everything else
    }
}
