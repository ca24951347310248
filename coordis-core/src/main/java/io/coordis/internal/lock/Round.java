package io.coordis.internal.lock;

import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.internal.Timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.IntFunction;

/**
 * One Redlock step (acquire, extend, release) sent to every node at once, and its one tally. The round is
 * decided once a majority granted, or so many said "held by another" that no majority can grant any more, or
 * every node answered (failures and timeouts decide nothing early). It ends once decided and every awaited
 * node answered too, or a grace after the decision: as long again as the decision took, at least
 * {@value #MIN_GRACE_NANOS} ns, at most the node timeout. A node not in by then is reported
 * {@link NodeVote.Vote#NOT_AWAITED}; a late grant there is released with the rest, or expires.
 *
 * <p>Every command has the node timeout from the round's start: still silent then, it is answered
 * {@link NodeVote.Vote#TIMEOUT} and its connection given up, also after the round ended. Both deadlines are
 * coarse tasks on the timer (a tick late at most, and nearly always cancelled), so no thread waits per node
 * and a test steps through them with a manual timer. Thread-safe.
 */
final class Round {
    static final long MIN_GRACE_NANOS = 1_000_000L;
    /** The detail of a vote not in when the round ended, from an awaited node. */
    static final String MAJORITY_DECIDED = "a majority had decided";
    /** The detail of a vote not awaited because the node failed or answered late before. */
    static final String NOT_WAITED_FOR = "a majority had decided; not waited for (failed or late last time)";

    /**
     * One node's answer: its vote; for a grant the node's fencing count; for "held" the holder's TTL (ms), for a
     * restart-guard refusal how long until the node may vote (ms).
     */
    record Answer(NodeVote vote, long fence, long pttl, Throwable failure) {

        static Answer of(LockNode node, NodeVote.Vote vote, String detail) {
            return new Answer(new NodeVote(node.address(), vote, detail), 0, 0, null);
        }

        /** {@code f} as the node's answer: {@code TIMEOUT} when it did not reply in time, else {@code ERROR}. */
        static Answer failure(LockNode node, Throwable f) {
            Throwable cause = f instanceof CompletionException && f.getCause() != null ? f.getCause() : f;
            boolean timeout = cause instanceof NodeUnavailableException n && n.timedOut();
            return new Answer(new NodeVote(node.address(), timeout ? NodeVote.Vote.TIMEOUT : NodeVote.Vote.ERROR,
                    String.valueOf(cause.getMessage())), 0, 0, cause);
        }

        /** True when the node failed or timed out, false when it answered (any vote). */
        boolean failed() {
            return vote.vote() == NodeVote.Vote.TIMEOUT || vote.vote() == NodeVote.Vote.ERROR;
        }

        NodeVote.Vote kind() {
            return vote.vote();
        }
    }

    /**
     * What asking one node gave: its answer to come, and the command whose reply it waits for; {@code null}
     * for an answer that keeps deadlines of its own (the restart guard's checks).
     */
    record Asked(CompletableFuture<Answer> answer, CompletableFuture<?> command) {
    }

    private final List<LockNode> nodes;
    private final Timer timer;
    private final Duration nodeTimeout;
    private final int quorum;
    private final boolean[] awaited;
    private final NodeHealth health;
    private final long start;
    private final List<CompletableFuture<Answer>> answers;
    private final CompletableFuture<?>[] commands;
    private final CompletableFuture<List<Answer>> result = new CompletableFuture<>();
    private Timer.Handle expiry; // guarded by this, as the rest
    private Timer.Handle grace;
    private int granted;
    private int held;
    private int answered;
    private int awaitedLeft;
    private boolean decided;
    private boolean ended;

    private Round(List<LockNode> nodes, int quorum, boolean[] awaited, NodeHealth health, Timer timer,
                  Duration nodeTimeout) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.awaited = awaited;
        this.health = health;
        this.timer = timer;
        this.nodeTimeout = nodeTimeout;
        this.start = timer.now();
        this.answers = new ArrayList<>(nodes.size());
        this.commands = new CompletableFuture<?>[nodes.size()];
        for (boolean a : awaited) {
            awaitedLeft += a ? 1 : 0;
        }
    }

    /**
     * Asks every node at once ({@code ask} must not block) and counts the answers. After its decision the
     * round waits for the {@code awaited} nodes; {@code health} (may be {@code null}) learns who kept up.
     */
    static Round start(List<LockNode> nodes, int quorum, boolean[] awaited, NodeHealth health, Timer timer,
                       Duration nodeTimeout, IntFunction<Asked> ask) {
        Round round = new Round(nodes, quorum, awaited, health, timer, nodeTimeout);
        for (int i = 0; i < nodes.size(); i++) {
            Asked asked = ask.apply(i);
            round.answers.add(asked.answer());
            round.commands[i] = asked.command();
        }
        synchronized (round) {
            round.expiry = timer.coarse(Math.max(1, nodeTimeout.toNanos()), round::expire);
        }
        for (int i = 0; i < nodes.size(); i++) {
            int node = i;
            round.answers.get(i).whenComplete((a, f) -> round.count(node, a != null ? a : Answer.failure(nodes.get(node), f)));
        }
        return round;
    }

    /** A round that waits for nobody after its decision and tracks no health (extend, release). */
    static Round start(List<LockNode> nodes, int quorum, Timer timer, Duration nodeTimeout, IntFunction<Asked> ask) {
        return start(nodes, quorum, new boolean[nodes.size()], null, timer, nodeTimeout, ask);
    }

    /** Every node's answer in node order, once the round ended; never fails (cancelled by {@link #abandon}). */
    CompletableFuture<List<Answer>> answers() {
        return result;
    }

    /** The round's start on the timer's ticker. */
    long start() {
        return start;
    }

    /** Stops waiting (the caller was interrupted); commands still out keep their deadline. */
    void abandon() {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            cancel(grace);
        }
        result.cancel(false);
    }

    private void count(int i, Answer a) {
        List<Answer> all = null;
        synchronized (this) {
            if (health != null) {
                health.answered(i, a.failed(), !ended);
            }
            if (ended) {
                return;
            }
            granted += a.kind() == NodeVote.Vote.ACQUIRED ? 1 : 0;
            held += a.kind() == NodeVote.Vote.HELD_BY_OTHER ? 1 : 0;
            answered++;
            awaitedLeft -= awaited[i] ? 1 : 0;
            if (!decided && (granted >= quorum || held > nodes.size() - quorum || answered == nodes.size())) {
                decided = true;
                if (awaitedLeft > 0) {
                    long took = timer.now() - start;
                    long graceNanos = Math.min(Math.max(1, nodeTimeout.toNanos()), Math.max(MIN_GRACE_NANOS, took));
                    grace = timer.coarse(graceNanos, this::endOfGrace);
                }
            }
            if (decided && awaitedLeft == 0) {
                all = end();
            }
        }
        if (all != null) {
            result.complete(all);
        }
    }

    private void endOfGrace() {
        List<Answer> all;
        synchronized (this) {
            if (ended) {
                return;
            }
            all = end();
        }
        result.complete(all);
    }

    /** Ends the round: the answers so far, and for every node not in, {@code NOT_AWAITED}. Holds this. */
    private List<Answer> end() {
        ended = true;
        cancel(grace);
        List<Answer> all = new ArrayList<>(nodes.size());
        boolean unanswered = false;
        for (int i = 0; i < nodes.size(); i++) {
            Answer a = answers.get(i).getNow(null);
            if (a == null) {
                unanswered = true;
                if (health != null) {
                    health.late(i); // a failure marks it failed instead when it comes
                }
                a = Answer.of(nodes.get(i), NodeVote.Vote.NOT_AWAITED, awaited[i] ? MAJORITY_DECIDED : NOT_WAITED_FOR);
            }
            all.add(a);
        }
        if (!unanswered) {
            cancel(expiry);
        }
        return Collections.unmodifiableList(all);
    }

    /** The node timeout has passed: every command still unanswered is answered TIMEOUT, its connection given up. */
    private void expire() {
        for (int i = 0; i < commands.length; i++) {
            CompletableFuture<Answer> answer = answers.get(i);
            if (commands[i] != null && !answer.isDone()) {
                LockNode node = nodes.get(i);
                if (answer.complete(Answer.failure(node, node.timeoutFailure(nodeTimeout)))) {
                    node.timedOut(commands[i]);
                }
            }
        }
    }

    private static void cancel(Timer.Handle h) {
        if (h != null) {
            h.cancel();
        }
    }
}
