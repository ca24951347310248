package io.coordis.signal;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A subscription that wakes once: the first signal it receives after it was created is its result, and
 * every later one is ignored. It is subscribed, and Redis has confirmed that, when the method that made
 * it returns; so the safe order is the natural one:
 *
 * <pre>{@code
 * try (Waiter done = signals.waiter("jobs:42:done")) {   // 1. subscribe
 *     startJob(42);                                       // 2. trigger the work
 *     Optional<Signal> s = done.await(Duration.ofSeconds(30));   // 3. wait
 * }
 * }</pre>
 *
 * <p>Delivery is at most once: a signal published while a node's connection is down is lost for that
 * node; Coordis subscribes again on reconnect and counts the outage in {@link #gaps()}. A waiter made by
 * an {@link Event} checks the event's key again after every gap, so it cannot miss a latched signal.
 *
 * <p>Thread-safe: any number of threads may await the same waiter; all see the same result.
 */
public interface Waiter extends AutoCloseable {
    /**
     * Blocks until the signal arrives or {@code timeout} passes; returns at once if it arrived already.
     *
     * @param timeout how long to wait
     * @return the signal, or empty when the timeout passed first (a zero or negative timeout only checks)
     * @throws InterruptedException  when the thread is interrupted while waiting (the waiter stays usable)
     * @throws IllegalStateException when the waiter was closed before a signal arrived
     * @throws io.coordis.CoordisException when the client was closed before a signal arrived (at once, however
     *                                     long the timeout)
     */
    Optional<Signal> await(Duration timeout) throws InterruptedException;

    /**
     * {@link #await(Duration)} without a thread waiting: completes with the signal, or empty when {@code timeout}
     * passes first (a zero or negative timeout only checks), or fails as {@code await} throws (an
     * {@link IllegalStateException} when the waiter is closed first, a {@link io.coordis.CoordisException} when the
     * client is). Completes on the client's callback executor ({@code Coordis.Builder.callbackExecutor}), never on a
     * thread the client needs. Cancelling the future ends this wait only; the waiter stays subscribed until closed.
     *
     * @param timeout how long to wait, from this call
     * @return a future of the signal, or of empty on timeout
     */
    CompletableFuture<Optional<Signal>> awaitAsync(Duration timeout);

    /**
     * The signal if it arrived already; never blocks (try-wait).
     *
     * @return the signal, or empty while none arrived
     * @throws IllegalStateException when the waiter was closed before a signal arrived
     * @throws io.coordis.CoordisException when the client was closed before a signal arrived
     */
    Optional<Signal> poll();

    /**
     * Completes with the signal when it arrives (on the client's callback executor), or
     * fails with a {@link java.util.concurrent.CancellationException} when the waiter is closed first, or
     * with a {@link io.coordis.CoordisException} when the client is.
     * For callers that wait for many waiters without a thread for each.
     *
     * @return a stage completed with the signal
     */
    CompletionStage<Signal> whenSignalled();

    /**
     * The channels (or the pattern) this waiter listens on, as subscribed at Redis.
     *
     * @return the channels, or the pattern
     */
    List<String> channels();

    /**
     * How many times a node's subscription was lost and restored while this waiter listened.
     *
     * @return the number of gaps, 0 when none
     */
    long gaps();

    /**
     * Unsubscribes without waiting for Redis to confirm (a signal published meanwhile, or a
     * {@link Signals#signalOne} that picks this waiter meanwhile, reaches no one); a signal already received
     * stays readable. Idempotent; never throws.
     */
    @Override
    void close();
}
