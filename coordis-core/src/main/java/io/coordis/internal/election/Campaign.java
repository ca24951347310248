package io.coordis.internal.election;

import io.coordis.Telemetry;
import io.coordis.internal.Timer;
import io.coordis.internal.contest.Answer;
import io.coordis.internal.contest.Contest;
import io.coordis.internal.contest.Contestant;
import io.coordis.internal.lease.ReleaseWaiter;
import io.coordis.internal.redis.ChannelRegistration;
import io.coordis.internal.redis.PubSubListener;

import java.util.concurrent.CompletableFuture;

/**
 * One campaign of a {@link LeaseElection} candidate, a {@link Contest} without a thread waiting: a try, and while
 * another leads, a wait on the election's channel (pub/sub) or the leader's TTL (the timer), then another try,
 * until won, the deadline or a cancel. Every step runs on a reply's or the timer's thread; {@link #result} completes
 * with the leadership, or {@code null} when the deadline passed. A leadership won by a try whose campaign was
 * cancelled meanwhile is resigned at once. Campaigns of one candidate run one after another ({@link #after}). A try
 * that fails transiently is made again while the campaign lasts, as the contest does for every wait.
 */
final class Campaign implements PubSubListener, Contestant<HeldLeadership> {
    final CompletableFuture<HeldLeadership> result;
    /** Completed when this campaign is over, so the candidate's next one may start. */
    final CompletableFuture<Void> over = new CompletableFuture<>();
    /** The result is the leadership the candidate held already, not one this campaign won. */
    volatile boolean reused;
    private final LeaseElection election;
    private final Timer timer;
    private final Contest<HeldLeadership> contest;
    // guarded by this
    private ChannelRegistration subscription;
    /** The candidate's campaign before this one: this one is over only once that one is too. */
    private CompletableFuture<Void> previous;
    private boolean began;

    Campaign(LeaseElection election, Timer timer, Telemetry.Wait telemetry, long waitNanos, boolean untilElected) {
        this.election = election;
        this.timer = timer;
        this.contest = new Contest<>(this, timer, telemetry, waitNanos, untilElected, Contest.Deadline.CUTS_WAITS,
                null);
        this.result = contest.outcome();
    }

    /** Starts this campaign once {@code previous} (the candidate's campaign before it) is over. */
    void after(CompletableFuture<Void> previous) {
        synchronized (this) {
            this.previous = previous;
        }
        contest.start();
    }

    /** The wait for the previous campaign, once; a leadership the candidate holds already is this one's result. */
    @Override
    public CompletableFuture<?> enter() {
        CompletableFuture<Void> before;
        synchronized (this) {
            if (began) {
                return READY;
            }
            began = true;
            before = previous;
        }
        if (before.isDone()) {
            begin();
            return READY;
        }
        CompletableFuture<Void> begun = new CompletableFuture<>();
        before.whenComplete((v, f) -> {
            if (timer.isClosed()) {
                begin(begun);
            } else {
                timer.execute(() -> begin(begun)); // not on the thread that ended the previous one: no deep chains
            }
        });
        return begun;
    }

    private void begin(CompletableFuture<Void> begun) {
        begin();
        begun.complete(null);
    }

    private void begin() {
        if (contest.isOver()) {
            return;
        }
        HeldLeadership mine = election.currentLeadership();
        if (mine != null) {
            reused = true;
            contest.settle(mine);
        }
    }

    @Override
    public CompletableFuture<Answer<HeldLeadership>> attempt(boolean waits) {
        return election.attemptAsync()
                .thenApply(a -> a.won() != null ? Answer.won(a.won()) : Answer.busy(a.pttlMillis()));
    }

    /**
     * After the first lost try: registers for the election's announcements (an uncontended campaign never
     * subscribes), without blocking, since this may run on a reply's I/O thread, and tries again once Redis
     * confirmed, so that an announcement between the try and the subscription is not missed. Later: until an
     * announcement or the leader's TTL.
     */
    @Override
    public CompletableFuture<Boolean> pause(Answer<HeldLeadership> busy, long maxNanos) {
        ChannelRegistration s;
        synchronized (this) {
            s = subscription;
        }
        if (s != null && s.ready().isDone()) {
            return contest.nap(ReleaseWaiter.untilExpiry(busy.holderMillis()));
        }
        if (s == null) {
            s = election.subscribeChanges(this);
            boolean keep;
            synchronized (this) {
                keep = !contest.isOver();
                if (keep) {
                    subscription = s;
                }
            }
            if (!keep) {
                s.close();
                return new CompletableFuture<>(); // ended meanwhile: the contest cancels it
            }
        }
        ChannelRegistration confirming = s;
        return s.ready().handle((ok, failure) -> {
            if (failure == null) {
                return true;
            }
            synchronized (this) {
                if (subscription == confirming) {
                    subscription = null; // subscribe again after the next lost try
                }
            }
            confirming.close();
            throw election.subscribeFailure(failure);
        });
    }

    @Override
    public boolean rings() {
        return true; // an announcement ends the pause after an outage early
    }

    /** An announcement on the election's channel: a leader resigned or was elected. */
    @Override
    public void message(String channel, String message) {
        contest.ring();
    }

    /** The client was closed: the next try fails naming the closed connection. */
    @Override
    public void closed() {
        contest.ring();
    }

    @Override
    public void undo(HeldLeadership won) {
        won.resignInBackground(); // cancelled while the try was out
    }

    /** Ends the campaign however it ended: unsubscribes, lets the next campaign start. */
    @Override
    public void ended(HeldLeadership won, Throwable failure) {
        ChannelRegistration s;
        CompletableFuture<Void> before;
        synchronized (this) {
            s = subscription;
            before = previous;
        }
        if (s != null) {
            s.close();
        }
        if (before == null) {
            over.complete(null);
        } else {
            before.whenComplete((v, f) -> over.complete(null)); // one that ended while queued keeps its place
        }
    }
}
