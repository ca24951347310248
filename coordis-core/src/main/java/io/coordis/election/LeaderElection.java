package io.coordis.election;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One candidate in a lease election on one Redis node (or Sentinel-managed master). The election's key
 * is its name (plus an explicit prefix, if set) and holds the leader's candidate id with a TTL; the
 * leader renews it every TTL/3 and so is re-elected without a gap. Every new leadership gets a term
 * from a counter that only grows ({@code {name}:term}), the fencing token for the leader's writes.
 *
 * <pre>{@code
 * LeaderElection election = coordis.election("reports:scheduler");
 * Leadership leadership = election.campaign();          // blocks until this candidate leads
 * while (leadership.isHeld()) {
 *     runOneJob(leadership.term());                      // pass the term to what you write
 * }
 * }</pre>
 *
 * <p>Waiting candidates do not poll: they wake when a leader resigns (pub/sub on {@code {name}:changed})
 * and when the leader's TTL runs out (a timer set from the TTL Redis reported, plus jitter). A leader
 * counts itself leader only until start of its last successful renewal + TTL − drift on the monotonic
 * clock, so it knows it lost before another candidate can be elected, even when Redis is unreachable or
 * the process was paused.
 *
 * <p>Term regression: the candidate remembers the highest term it has seen. If Redis lost data
 * (restart without persistence, failover to a replica that lagged) and hands out a term not above it,
 * that term is refused: the counter is raised past the highest seen and the new leadership takes the
 * next term, and the regression is reported to {@link ElectionListener#termRegressed}, in an ERROR log
 * and to observers. A candidate that never saw the older terms cannot detect this; a fenced resource
 * that remembers the highest term it accepted still refuses the regressed leader.
 *
 * <p>Thread-safe; one campaign runs at a time per candidate (concurrent callers wait for it).
 */
public interface LeaderElection extends AutoCloseable {

    /**
     * The election's name as given.
     *
     * @return the name
     */
    String name();

    /**
     * The Redis key that holds the leader's id: the key prefix plus the name.
     *
     * @return the key, prefix included
     */
    String key();

    /**
     * This candidate's id.
     *
     * @return the id, written to the key while this candidate leads
     */
    String candidateId();

    /**
     * Campaigns until this candidate leads or {@code timeout} passes. Returns at once with the current
     * leadership if this candidate leads already.
     *
     * @param timeout how long to campaign; {@link Duration#ZERO} tries once
     * @return the leadership, or empty when another candidate still led when the time was up
     * @throws InterruptedException         when interrupted while waiting (nothing is left held)
     * @throws io.coordis.CoordisException when Redis cannot be reached or refuses the commands; a try whose
     *                                      answer was lost may have won at Redis, and what it won is resigned
     *                                      at once, so other candidates need not wait out its TTL
     */
    Optional<Leadership> campaign(Duration timeout) throws InterruptedException;

    /**
     * {@link #campaign(Duration)} without a thread waiting: the campaign rides on the election's pub/sub channel and
     * the client's timer, and the future completes with the leadership, or empty when another candidate still led when
     * the time was up. It completes on the client's callback executor
     * ({@link io.coordis.Coordis.Builder#callbackExecutor}), never on a thread the client needs. Cancelling it ends
     * the campaign and leaves nothing held: a leadership won in that instant is resigned at once (in the background),
     * so other candidates need not wait out its TTL. Campaigns of one candidate run one after another, blocking ones
     * included.
     *
     * @param timeout how long to campaign; {@link Duration#ZERO} tries once
     * @return the leadership, or empty on timeout; fails with a {@link io.coordis.CoordisException} as
     *         {@link #campaign(Duration)} throws it
     * @throws IllegalArgumentException for a negative timeout
     * @throws IllegalStateException    when this candidate was closed
     */
    CompletableFuture<Optional<Leadership>> campaignAsync(Duration timeout);

    /**
     * Like {@link #campaign(Duration)} without a time limit.
     *
     * @return the leadership
     * @throws InterruptedException when interrupted while waiting (nothing is left held)
     */
    Leadership campaign() throws InterruptedException;

    /**
     * This candidate's current leadership, if it leads (checked against the local deadline). Does not block.
     *
     * @return the leadership, or empty when this candidate does not lead
     */
    Optional<Leadership> leadership();

    /**
     * Whether this candidate leads now (its leadership is valid). Does not block.
     *
     * @return {@code true} while this candidate's leadership is valid
     */
    default boolean isLeader() {
        return leadership().isPresent();
    }

    /**
     * Resigns this candidate's leadership if it has one (see {@link Leadership#resign()}).
     *
     * @return {@code true} if this call ended a leadership at Redis
     */
    boolean resign();

    /**
     * Who leads now, read from Redis (one round trip).
     *
     * @return the leader, or empty when nobody leads
     * @throws io.coordis.CoordisException when Redis cannot be reached, or the key holds another type
     */
    Optional<Leader> leader();

    /**
     * The highest term this candidate has seen (elected, renewed, observed, or reported busy); 0 if none.
     *
     * @return the highest term seen, 0 before any
     */
    long highestTermSeen();

    /**
     * Calls {@code events} with the current leader at once, then on every change of leader or term: elections
     * and resignations as they are announced, expiries when the leader's TTL runs out. Each event is also checked
     * for term regression. Calls come one at a time and in order, on the client's callback executor
     * ({@link io.coordis.Coordis.Builder#callbackExecutor}). Close the returned handle to stop.
     *
     * @param events called with each leader event; the first call tells the current leader
     * @return a handle whose {@code close()} unsubscribes
     * @throws io.coordis.CoordisException when the pub/sub connection cannot be opened
     */
    AutoCloseable observe(Consumer<LeaderEvent> events);

    /**
     * Starts a {@link Candidacy} of this candidate: it campaigns at once, leads until its leadership ends, campaigns
     * again, and resigns when closed, telling {@code listener}. Does not block. Run one candidacy per candidate at a
     * time: two would share its leadership.
     *
     * @param listener told of the candidacy's leaderships and failures, on the client's callback executor
     * @return the running candidacy; close it to resign and stop campaigning
     * @throws IllegalStateException when this candidate was closed
     */
    Candidacy candidacy(CandidacyListener listener);

    /**
     * Adds a listener for this candidate's leaderships.
     *
     * @param listener told when this candidate is elected and when its leadership ends
     */
    void addListener(ElectionListener listener);

    /**
     * Removes a listener added by {@link #addListener}; does nothing when it was not added.
     *
     * @param listener the listener to remove
     */
    void removeListener(ElectionListener listener);

    /**
     * Campaigns for at most {@code wait}, then runs {@code task} on this thread while leading, resigns
     * when it ends, and answers its result. If the leadership ends while the task runs, this thread is
     * interrupted and {@link LeadershipLostException} is thrown once the task returns or throws.
     *
     * @param <T>  the task's result type
     * @param wait how long to campaign before giving up
     * @param task the work to run while leading, given the leadership
     * @return the task's result, or empty when this candidate was not elected within {@code wait}
     * @throws InterruptedException     when interrupted while campaigning, or by the caller while the
     *                                  task runs
     * @throws LeadershipLostException  when the leadership ended while the task ran
     */
    <T> Optional<T> whileLeader(Duration wait, LeaderTask<T> task) throws InterruptedException;

    /** Work that runs while leading; it should stop promptly when interrupted. */
    @FunctionalInterface
    interface LeaderTask<T> {
        /**
         * Runs the work while this candidate leads.
         *
         * @param leadership the leadership the work runs under; its term fences writes
         * @return the work's result
         * @throws InterruptedException when the leadership ended or the caller interrupted; stop promptly
         */
        T run(Leadership leadership) throws InterruptedException;
    }

    /** Resigns if leading and stops every observer; the candidate cannot be used afterwards. */
    @Override
    void close();
}
