package io.coordis;

import java.time.Duration;
import java.util.List;

/**
 * What a client tells about its work as it happens, for metrics and traces: lock acquires and their leases,
 * Redlock votes, campaigns and leaderships, settled and swept queue messages, signals, count-down latches. Set on the builder
 * ({@link Coordis.Builder#telemetry}); the default, {@link #NONE}, ignores everything and costs no allocation.
 * {@code coordis-micrometer}'s {@code CoordisMetrics} turns these calls into meters and observations.
 *
 * <p>Every method has an empty default, so an implementation overrides only what it records. Methods are called
 * on the client's threads (callers' threads, the timer, Lettuce's event loops) at once and concurrently: they must
 * be thread-safe, return quickly, never block and never throw. Names are as the application gave them, without
 * the client's key prefix; they can be unbounded ({@code orders:42}), which a metrics implementation must bound.
 */
public interface Telemetry {
    /** Ignores everything; the client's default. */
    Telemetry NONE = new Telemetry() {
        @Override
        public String toString() {
            return "Telemetry.NONE";
        }
    };

    /** How a wait for a lock or a leadership ended. */
    enum Result {
        /** The lock or the leadership is the caller's. */
        ACQUIRED,
        /** A try without waiting found it held by another. */
        BUSY,
        /** It was still held by another when the wait ran out. */
        TIMEOUT,
        /** The waiting thread was interrupted. */
        INTERRUPTED,
        /** Redis failed (unreachable, refused, too few Redlock nodes): the caller got an exception. */
        ERROR
    }

    /** What a lease holds. */
    enum Claim {
        /** A lock's lease. */
        LOCK,
        /** A leadership of an election. */
        LEADERSHIP
    }

    /** How one automatic renewal of a lease went. */
    enum Renewal {
        /** Redis extended the claim. */
        RENEWED,
        /** The request failed (an error, a timeout); it is retried while the validity lasts. */
        FAILED,
        /** Redis answered that the claim is no longer this holder's; the lease is lost. */
        REFUSED
    }

    /** Why a lease was lost. */
    enum Loss {
        /**
         * Redis answered that the claim is no longer this holder's: it expired there, was deleted (a forced
         * unlock, {@code DEL}) or was taken over.
         */
        NOT_OURS,
        /** The validity deadline passed without a successful renewal: Redis was unreachable or too slow. */
        DEADLINE
    }

    /** One wait in progress (an acquire, a campaign); told once how it ended. */
    @FunctionalInterface
    interface Wait {
        /** Records nothing. */
        Wait NONE = (result, took) -> {
        };

        /**
         * The wait ended with {@code result} after {@code took} (on the client's {@link Ticker}).
         *
         * @param result how the wait ended
         * @param took   how long it took
         */
        void ended(Result result, Duration took);
    }

    /**
     * One lease while it is held (a lock's lease, a leadership). {@link #ended()} comes once, last: after a
     * release or resignation, or after {@link #lost}.
     */
    interface Hold {
        /** Records nothing. */
        Hold NONE = new Hold() {
        };

        /**
         * An automatic renewal answered (or failed).
         *
         * @param outcome how the renewal went
         */
        default void renewal(Renewal outcome) {
        }

        /**
         * The lease was lost; {@link #ended()} follows.
         *
         * @param reason why the lease was lost
         */
        default void lost(Loss reason) {
        }

        /** The lease is no longer held. */
        default void ended() {
        }
    }

    /**
     * An acquire of the lock {@code lock} starts ({@code tryAcquire}, {@code acquire}); the wait is told how it ended.
     *
     * @param lock the lock's name
     * @return the wait to tell how it ended; {@link Wait#NONE} records nothing
     */
    default Wait acquiring(String lock) {
        return Wait.NONE;
    }

    /**
     * A Redlock acquire round on {@code lock} was decided; {@code votes} in the order of the client's URLs.
     *
     * @param lock  the lock's name
     * @param votes each node's vote
     */
    default void redlockVotes(String lock, List<NodeVote> votes) {
    }

    /**
     * A campaign in the election {@code election} starts; the wait is told how it ended.
     *
     * @param election the election's name
     * @return the wait to tell how it ended; {@link Wait#NONE} records nothing
     */
    default Wait campaigning(String election) {
        return Wait.NONE;
    }

    /**
     * A lease on {@code name} (a lock, an election) is now held; the hold is told its renewals, loss and end.
     *
     * @param claim what the lease holds
     * @param name  the lock's or election's name
     * @return the hold to tell what happens to the lease; {@link Hold#NONE} records nothing
     */
    default Hold held(Claim claim, String name) {
        return Hold.NONE;
    }

    /**
     * This client became leader of {@code election} with {@code term} ({@code leading}), or stopped leading.
     *
     * @param election the election's name
     * @param leading  {@code true} when it became leader, {@code false} when it stopped
     * @param term     the leadership's term
     */
    default void leadership(String election, boolean leading, long term) {
    }

    /**
     * A message of the reliable queue {@code queue} was settled with {@code outcome}; {@code processing} is the
     * time since it was taken, or {@code null} when it was settled by its id, away from its delivery.
     *
     * @param queue      the queue's name
     * @param outcome    how it was settled
     * @param processing the time since it was taken; null when settled by its id
     */
    default void settled(String queue, Outcome outcome, Duration processing) {
    }

    /**
     * A sweep of {@code queue} took messages from dead consumers: {@code requeued} go to be delivered again,
     * {@code deadLettered} had failed too often. Called only when it moved any.
     *
     * @param queue        the queue's name
     * @param requeued     how many messages go to be delivered again
     * @param deadLettered how many were dead-lettered
     */
    default void swept(String queue, int requeued, int deadLettered) {
    }

    /**
     * A signal on {@code channel} was published and reached {@code receivers} subscribers.
     *
     * @param channel   the channel
     * @param receivers how many subscribers on the master received it
     */
    default void published(String channel, long receivers) {
    }

    /**
     * A signal on {@code channel} arrived from one node (a master and a replica each count one).
     *
     * @param channel the channel
     */
    default void received(String channel) {
    }

    /**
     * A rate limiter decided a request for {@code permits} permits: granted, or refused (a refused wait included).
     *
     * @param limiter the limiter's name; for a member of a family ({@code forKey}), the family's name
     * @param granted whether the permits were granted
     * @param permits how many permits were asked for
     */
    default void rateDecided(String limiter, boolean granted, int permits) {
    }

    /**
     * The pub/sub connection to {@code node} ({@code host:port}) was lost and subscribed again: signals published
     * meanwhile were not heard from it.
     *
     * @param node the node ({@code host:port})
     */
    default void gap(String node) {
    }

    /**
     * The count-down latch {@code latch} was counted down to {@code count}; {@code opened} when this call opened it.
     *
     * @param latch  the latch's name
     * @param count  the count after the call, 0 once open
     * @param opened whether this call took the count to 0
     */
    default void countedDown(String latch, long count, boolean opened) {
    }

    /**
     * A wait for the count-down latch {@code latch} ended with the latch {@code open}, or with its timeout, after
     * {@code took} (on the client's {@link Ticker}). A wait that failed or was cancelled is not told.
     *
     * @param latch the latch's name
     * @param open  whether the latch was open; {@code false} when the timeout passed first
     * @param took  how long the wait took
     */
    default void latchAwaited(String latch, boolean open, Duration took) {
    }
}
