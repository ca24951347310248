package io.coordis.internal.contest;

import java.util.concurrent.CompletableFuture;

/**
 * What a {@link Contest} needs to know of one kind of primitive: how to try once, what to wait for between tries,
 * and what to let go of when it ends. Lock acquisitions, semaphore requests, campaigns and reliable takes each are
 * one. The contest calls these methods from whichever thread has the news (a reply, a message, the timer); one
 * try or pause is out at a time, but {@link #ended} may run while a try is out, so what they share is guarded.
 * None blocks, except to open the node's pub/sub connection on its first use, on the client's thread.
 *
 * @param <T> what is contested: a lease, a permit, a leadership, a delivery
 */
public interface Contestant<T> {
    /** Completed at once: nothing to wait for. */
    CompletableFuture<Void> READY = CompletableFuture.completedFuture(null);

    /**
     * The wait before a try that the contest's end and its deadline may cut short: a place in line in this
     * process, a free slot, the candidate's previous campaign. Called before the first try, after an outage and
     * after a pause that answered "no more tries"; {@link #READY} when there is nothing to wait for (a place held
     * already). A failure of the future ends the contest with that failure, as it is. The contest cancels the
     * future when it ends first: what must follow the wait itself (closing a place that came too late) hangs on
     * the wait, not on this future.
     */
    default CompletableFuture<?> enter() {
        return READY;
    }

    /**
     * One try at Redis; never cut short, since its script may run anyway. {@code waits}: a busy answer will be
     * waited on (the deadline has not passed, or there is none). A failed future is an outage.
     */
    CompletableFuture<Answer<T>> attempt(boolean waits);

    /**
     * The wait after the busy answer {@code busy}, at most {@code maxNanos} where the contest has a deadline:
     * completes with {@code true} to try again, {@code false} for no more tries (the contest ends empty, or enters
     * again when it lasts until won). A failure is an outage. Cancelled when the contest ends.
     */
    CompletableFuture<Boolean> pause(Answer<T> busy, long maxNanos);

    /** Lets go of {@code won}, which a try won after the contest had ended (the caller gave up): without waiting. */
    default void undo(T won) {
    }

    /** A try or a pause failed with {@code failure}, before the contest decides whether to ride it out. */
    default void failed(Throwable failure) {
    }

    /** {@code failure} as the contest reports it: naming the object, for instance. */
    default Throwable named(Throwable failure) {
        return failure;
    }

    /** Whether {@link Contest#ring} ends the pause after an outage too (an announcement that may end the outage). */
    default boolean rings() {
        return false;
    }

    /** The contest ended with {@code won} (or the empty value) or {@code failure}; runs once, at once. */
    default void ended(T won, Throwable failure) {
    }

    /**
     * Lets go of what the contest still holds (a place in line, a slot, a token at Redis); runs once, after
     * {@link #ended} and once no try is out, and before the caller sees the outcome (unless the caller cancelled).
     */
    default void close(T won, Throwable failure) {
    }
}
