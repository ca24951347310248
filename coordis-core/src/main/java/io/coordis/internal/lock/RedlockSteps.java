package io.coordis.internal.lock;

import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.WrongTypeException;
import io.coordis.internal.Timer;
import io.coordis.lock.LockOptions;
import io.coordis.lock.QuorumUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * Redlock's three steps over N nodes (N ≥ 3), each one {@link Round} decided by a majority (N/2 + 1): acquire,
 * extend, release. A lock is held when a majority granted it and validity remains: validity = TTL − elapsed −
 * (TTL × drift factor + 2 ms), measured on the timer from the start of the round. A failed acquire is released
 * on every node at once. Extension needs a majority within validity; release runs on every node and waits for a
 * majority (or the node timeout), and goes again to a node that did not answer. No lease and no waiting policy here:
 * the lock around it has those.
 *
 * <h2>Fencing numbers</h2>
 * Each node counts acquisitions in a counter beside the key. A granted round takes the largest count T among
 * the nodes that granted it and raises the counter of every granting node below T to T before the lease is
 * handed out; if fewer than a majority then hold a counter ≥ T, the acquire fails. Any later acquisition needs
 * a majority too, which shares a node with this one, whose counter is ≥ T: its number is > T. So fencing
 * numbers strictly increase as long as nodes keep their counters (persistence); a node that restarts empty
 * restarts its counter, and monotonicity then holds only while a majority of every earlier write-back survives.
 * Thread-safe.
 */
final class RedlockSteps {

    /**
     * An acquire's outcome: granted (a fencing number, valid until {@code validUntil} on the timer's ticker),
     * or refused with the busy or undecided answer in {@code refusal}.
     */
    record Acquired(List<NodeVote> votes, long start, long validUntil, long fence, Contention.Attempt refusal) {
        boolean granted() {
            return refusal == null;
        }
    }

    /** The longest pause between two sends of a release to a node that does not answer. */
    static final Duration MAX_RESEND_PAUSE = Duration.ofSeconds(1);
    /** How often a release that got no answer is sent again to a node, at most. */
    static final int MAX_RESENDS = 8;

    private final List<LockNode> nodes;
    private final String key;
    private final LockOptions options;
    private final Timer timer;
    private final int quorum;
    private final NodeHealth health;
    private final RedlockScripts scripts;

    RedlockSteps(List<LockNode> nodes, List<RestartGuard> guards, Supplier<Duration> guardWindow, String key,
                 LockOptions options, Timer timer) {
        this.nodes = List.copyOf(nodes);
        this.key = key;
        this.options = options;
        this.timer = timer;
        this.quorum = Quorum.of(nodes.size());
        this.health = new NodeHealth(nodes.size());
        this.scripts = new RedlockScripts(this.nodes, List.copyOf(guards), guardWindow, key, options, timer);
    }

    int quorum() {
        return quorum;
    }

    NodeHealth health() {
        return health;
    }

    /**
     * Asks every node for the lock under {@code token}; {@code waits}: the caller tries again when refused (else a
     * busy node writes nothing). Cancelling the result stops waiting for the round; the caller then releases the
     * token everywhere. Does not block.
     */
    CompletableFuture<Acquired> acquire(String token, boolean waits) {
        String now = Long.toString(System.currentTimeMillis());
        Round round = Round.start(nodes, quorum, health.awaited(), health, timer, options.nodeTimeout(),
                i -> scripts.acquire(i, token, now, waits));
        CompletableFuture<Acquired> outcome = round.answers().thenCompose(answers -> decide(round.start(), answers, token));
        outcome.whenComplete((a, f) -> {
            if (f instanceof CancellationException) {
                round.abandon();
            }
        });
        return outcome;
    }

    private CompletableFuture<Acquired> decide(long start, List<Round.Answer> answers, String token) {
        List<NodeVote> votes = answers.stream().map(Round.Answer::vote).toList();
        List<Integer> granted = new ArrayList<>();
        long fence = Long.MIN_VALUE;
        for (int i = 0; i < answers.size(); i++) {
            if (answers.get(i).kind() == NodeVote.Vote.ACQUIRED) {
                granted.add(i);
                fence = Math.max(fence, answers.get(i).fence());
            }
        }
        if (granted.size() < quorum) {
            return CompletableFuture.completedFuture(refused(answers, votes, false, token));
        }
        long validUntil = start + options.validityNanos(options.ttl());
        long number = fence;
        return raiseFences(granted, answers, fence, token).thenApply(raised -> raised && validUntil - timer.now() > 0
                ? new Acquired(votes, start, validUntil, number, null) : refused(answers, votes, true, token));
    }

    /**
     * Raises the fencing counter of every granting node below {@code fence} to it, and records {@code fence} as the
     * holder's there (its own number was lower); true when a majority of nodes then holds a counter ≥ {@code fence}.
     */
    private CompletableFuture<Boolean> raiseFences(List<Integer> granted, List<Round.Answer> answers, long fence,
                                                   String token) {
        List<CompletableFuture<Boolean>> raised = new ArrayList<>();
        int atFence = 0;
        for (int i : granted) {
            if (answers.get(i).fence() >= fence) {
                atFence++;
            } else {
                raised.add(scripts.raiseFence(i, fence, token));
            }
        }
        int already = atFence;
        return CompletableFuture.allOf(raised.toArray(CompletableFuture[]::new)).thenApply(x ->
                already + raised.stream().filter(CompletableFuture::join).count() >= quorum);
    }

    /**
     * How long until enough of the nodes the restart guard refused (after checking their uptime) may vote to make a
     * majority with those that granted; {@code null} when that does not depend on those windows alone (other nodes
     * failed, or a node lost its marker and is checked on the next try).
     */
    private Duration untilTrusted(List<Round.Answer> answers) {
        long granted = answers.stream().filter(a -> a.kind() == NodeVote.Vote.ACQUIRED).count();
        List<Long> trusted = answers.stream().filter(a -> a.kind() == NodeVote.Vote.REFUSED_RECENT_RESTART && a.pttl() > 0)
                .map(Round.Answer::pttl).sorted().toList();
        int needed = (int) (quorum - granted);
        return needed < 1 || trusted.size() < needed ? null : Duration.ofMillis(trusted.get(needed - 1));
    }

    /** A refused acquire: released on every node at once (not waited for), then busy or undecided. */
    private Acquired refused(List<Round.Answer> answers, List<NodeVote> votes, boolean majority, String token) {
        releaseEverywhere(token);
        long pttl = answers.stream().filter(a -> a.kind() == NodeVote.Vote.HELD_BY_OTHER)
                .mapToLong(Round.Answer::pttl).min().orElse(-2);
        Contention.Attempt refusal;
        if (Quorum.busy(votes) || majority) {
            refusal = Contention.Attempt.busy(pttl);
        } else {
            refusal = answers.stream().filter(a -> a.failure() instanceof WrongTypeException).findFirst()
                    .map(a -> Contention.Attempt.undecided(pttl, (WrongTypeException) a.failure()))
                    .orElseGet(() -> Contention.Attempt.undecided(pttl,
                            new QuorumUnavailableException("cannot lock '" + key + "'", quorum, votes, untilTrusted(answers))));
        }
        return new Acquired(votes, 0, 0, 0, refusal);
    }

    /**
     * Extends the lock to {@code ttl} on every node at once: {@code true} when a majority extended it within
     * the validity of {@code ttl}, {@code false} when it is held by another or the time ran out. Does not block.
     *
     * @throws QuorumUnavailableException (in the future) when too few nodes answered to decide
     */
    CompletableFuture<Boolean> extend(String token, Duration ttl) {
        Round round = Round.start(nodes, quorum, timer, options.nodeTimeout(), i -> scripts.extend(i, token, ttl));
        return round.answers().thenApply(answers -> {
            List<NodeVote> votes = answers.stream().map(Round.Answer::vote).toList();
            boolean inTime = timer.now() - round.start() < options.validityNanos(ttl);
            if (Quorum.count(votes, NodeVote.Vote.ACQUIRED) >= quorum && inTime) {
                return true;
            }
            if (Quorum.busy(votes) || !inTime) {
                return false;
            }
            throw new QuorumUnavailableException("cannot extend '" + key + "'", quorum, votes);
        });
    }

    /**
     * Compare-and-delete on every node at once; does not wait. The round ends once a majority deleted the key,
     * or every node answered; a node silent at the node timeout counts as not answered. A node whose release got no
     * answer (a timeout, whose connection is then replaced, or a broken connection: it may never have run) is sent it
     * again on the new connection, and again after each such failure, pausing from the node timeout up to
     * {@link #MAX_RESEND_PAUSE}, until it answers, {@link #MAX_RESENDS} were sent, or the key would have expired anyway
     * (a TTL after this call). So a node that missed a release frees the name once it is reachable again, not at the
     * end of the TTL; a node down for longer keeps it until then, as before.
     */
    Round releaseEverywhere(String token) {
        long until = timer.now() + options.ttl().toNanos();
        return Round.start(nodes, quorum, timer, options.nodeTimeout(), i -> {
            Round.Asked asked = scripts.release(i, token);
            resendUnanswered(i, token, asked.command(), until, 0);
            return asked;
        });
    }

    /**
     * Once {@code sent} (release number {@code resent} of {@code token} on node {@code i}) failed for want of an
     * answer, sends it again: at once the first time (it goes out when the replacing connection has opened), after a
     * pause doubling from the node timeout the next times. Nothing once the client is closed, after {@code until} or
     * after {@link #MAX_RESENDS}.
     */
    private void resendUnanswered(int i, String token, CompletableFuture<?> sent, long until, int resent) {
        sent.whenComplete((reply, failure) -> {
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (!(cause instanceof NodeUnavailableException) || resent >= MAX_RESENDS || timer.isClosed()) {
                return; // answered (deleted or not ours), refused for good, given up, or the client is gone
            }
            long pause = resent == 0 ? 0 : Math.min(MAX_RESEND_PAUSE.toNanos(),
                    options.nodeTimeout().toNanos() << Math.min(resent - 1, 20));
            if (timer.now() + pause - until >= 0) {
                return; // the key expires on the node by then
            }
            timer.delay(pause).thenRun(() -> {
                if (!timer.isClosed()) {
                    resendUnanswered(i, token, scripts.release(i, token).command(), until, resent + 1);
                }
            });
        });
    }

    /**
     * Releases on every node, waiting (through interrupts, restoring the flag) until a majority deleted the key
     * or the node timeout passed; a slow or partitioned node is not waited for (its key expires).
     *
     * @return {@code true} when a majority deleted it
     * @throws NodeUnavailableException when no node answered
     */
    boolean release(String token) {
        List<Round.Answer> answers = joinBounded(List.of(releaseEverywhere(token).answers())).get(0);
        long answered = answers.stream().filter(a -> !a.failed() && a.kind() != NodeVote.Vote.NOT_AWAITED).count();
        if (answered == 0) {
            throw new NodeUnavailableException(null, "could not release '" + key + "' on any of " + nodes.size()
                    + " Redis nodes; it expires by its TTL", null);
        }
        return Quorum.count(answers.stream().map(Round.Answer::vote).toList(), NodeVote.Vote.ACQUIRED) >= quorum;
    }

    /**
     * Leaves the key to expire {@code keepFor} from now on every node where {@code token} holds it, waiting as
     * {@link #release} does; a node not reached keeps the key until its earlier expiry.
     *
     * @return {@code true} when a majority took the new expiry
     * @throws NodeUnavailableException when no node answered
     */
    boolean releaseAfter(String token, Duration keepFor) {
        Round round = Round.start(nodes, quorum, timer, options.nodeTimeout(), i -> scripts.releaseAfter(i, token, keepFor));
        List<Round.Answer> answers = joinBounded(List.of(round.answers())).get(0);
        long answered = answers.stream().filter(a -> !a.failed() && a.kind() != NodeVote.Vote.NOT_AWAITED).count();
        if (answered == 0) {
            throw new NodeUnavailableException(null, "could not release '" + key + "' after a time on any of "
                    + nodes.size() + " Redis nodes; it expires by its TTL", null);
        }
        return Quorum.count(answers.stream().map(Round.Answer::vote).toList(), NodeVote.Vote.ACQUIRED) >= quorum;
    }

    /**
     * Results of futures that cannot fail and each end within a deadline; waits through interrupts (restoring
     * the flag), as releasing must finish.
     */
    static <T> List<T> joinBounded(List<CompletableFuture<T>> futures) {
        boolean interrupted = Thread.interrupted();
        try {
            while (true) {
                try {
                    CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get();
                    return futures.stream().map(CompletableFuture::join).toList();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    throw new IllegalStateException("node answers never fail", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
