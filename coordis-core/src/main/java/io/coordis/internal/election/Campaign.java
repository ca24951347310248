package io.coordis.internal.election;

import io.coordis.internal.Durations;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;
import io.coordis.internal.lease.ReleaseWaiter;
import io.coordis.internal.redis.PubSubListener;
import io.coordis.internal.redis.Subscription;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * One campaign of a {@link LeaseElection} candidate, without a thread waiting: a try, and while another leads, a
 * wait on the election's channel (pub/sub) or the leader's TTL (the timer), then another try, until won, the
 * deadline or a cancel. Every step runs on a reply's or the timer's thread; {@link #result} completes with the
 * leadership, or {@code null} when the deadline passed. A leadership won by a try whose campaign was cancelled
 * meanwhile is resigned at once. Campaigns of one candidate run one after another ({@link #after}). A try that
 * fails transiently is made again while the campaign lasts, as {@link Outages} says.
 */
final class Campaign implements PubSubListener {
    private enum State { QUEUED, TRYING, CONFIRMING, WAITING, DONE }

    final CompletableFuture<HeldLeadership> result = new CompletableFuture<>();
    /** Completed when this campaign is over, so the candidate's next one may start. */
    final CompletableFuture<Void> over = new CompletableFuture<>();
    /** The result is the leadership the candidate held already, not one this campaign won. */
    volatile boolean reused;
    private final LeaseElection election;
    private final Timer timer;
    private final long deadline;
    /** Whether the campaign ends at {@link #deadline}; else it lasts until elected. */
    private final boolean bounded;
    private State state = State.QUEUED;
    /** An announcement (or the client closing) came while a try was out: try again at once. */
    private boolean rung;
    private Subscription subscription;
    private Timer.Handle wake;
    private Timer.Handle expiry;
    /** The candidate's campaign before this one: this one is over only once that one is too. */
    private CompletableFuture<Void> previous;
    /** The transient failure of the last try, ridden out while the campaign lasts ({@link Outages}); else null. */
    private Throwable outage;
    /** Transient failures in a row. */
    private int outages;

    Campaign(LeaseElection election, Timer timer, long waitNanos, boolean untilElected) {
        this.election = election;
        this.timer = timer;
        this.bounded = !untilElected && waitNanos != Long.MAX_VALUE;
        this.deadline = Durations.saturatedAdd(timer.now(), waitNanos);
        result.whenComplete((v, f) -> ended(f instanceof CancellationException));
    }

    /** Starts this campaign once {@code previous} (the candidate's campaign before it) is over. */
    void after(CompletableFuture<Void> previous) {
        synchronized (this) {
            this.previous = previous;
        }
        if (previous.isDone()) {
            begin(); // its try goes out before the deadline can end it, also with no time to wait
        }
        if (bounded) {
            Timer.Handle h = timer.coarse(deadline - timer.now(), this::expired);
            synchronized (this) {
                expiry = h;
            }
            if (result.isDone()) {
                h.cancel();
            }
        }
        if (previous.isDone()) {
            return;
        }
        previous.whenComplete((v, f) -> {
            if (timer.isClosed()) {
                begin();
            } else {
                timer.execute(this::begin); // not on the thread that ended the previous one: no deep chains
            }
        });
    }

    private void begin() {
        synchronized (this) {
            if (state != State.QUEUED) {
                return;
            }
            HeldLeadership mine = election.currentLeadership();
            if (mine != null) {
                reused = true;
                result.complete(mine);
                return;
            }
            state = State.TRYING;
        }
        attempt();
    }

    private void attempt() {
        CompletableFuture<LeaseElection.Attempt> tried;
        try {
            tried = election.attemptAsync();
        } catch (RuntimeException e) {
            outage(e);
            return;
        }
        tried.whenComplete(this::answered);
    }

    /**
     * A try or the subscription failed: a transient failure is tried again after {@link Outages}' pause while the
     * campaign lasts (an announcement ends the pause early); otherwise, or once the deadline passed, it fails.
     */
    private void outage(Throwable failure) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                ? failure.getCause() : failure;
        long left = bounded ? deadline - timer.now() : Long.MAX_VALUE;
        if (left <= 0 || !Outages.ridesOut(cause)) {
            result.completeExceptionally(cause);
            return;
        }
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            outage = cause;
            state = State.WAITING;
            wake = timer.after(Outages.pauseNanos(cause, ++outages, left), this::woken);
        }
    }

    private void answered(LeaseElection.Attempt attempt, Throwable failure) {
        if (failure != null) {
            outage(failure);
            return;
        }
        synchronized (this) {
            outage = null;
            outages = 0;
        }
        if (attempt.won() != null) {
            if (!result.complete(attempt.won())) {
                attempt.won().resignInBackground(); // cancelled while the try was out
            }
            return;
        }
        boolean timedOut = false;
        boolean subscribe = false;
        boolean confirm = false;
        boolean retry = false;
        synchronized (this) {
            if (state == State.DONE) {
                return;
            }
            if (bounded && timer.now() - deadline >= 0) {
                timedOut = true;
            } else if (subscription == null || !subscription.ready().isDone()) {
                state = State.CONFIRMING;
                subscribe = subscription == null;
                confirm = true;
            } else if (rung) {
                rung = false;
                retry = true;
            } else {
                state = State.WAITING;
                wake = timer.after(ReleaseWaiter.untilExpiry(attempt.pttlMillis()), this::woken);
            }
        }
        if (timedOut) {
            result.complete(null);
        } else if (retry) {
            attempt();
        } else if (confirm) {
            Subscription s = subscribe ? subscribe() : subscription;
            if (s != null) {
                s.ready().whenComplete(this::confirmed);
            }
        }
    }

    /**
     * Registers for the election's announcements after a try lost (an uncontended campaign never subscribes), without
     * blocking: this may run on a reply's I/O thread. {@code null} when the campaign ended meanwhile or failed.
     */
    private Subscription subscribe() {
        Subscription s;
        try {
            s = election.subscribeChanges(this);
        } catch (RuntimeException e) {
            outage(e);
            return null;
        }
        synchronized (this) {
            if (state != State.DONE) {
                subscription = s;
                return s;
            }
        }
        s.close();
        return null;
    }

    /**
     * Redis confirmed the subscription after a try lost: the next try comes right after that, so that an
     * announcement between the first try and the subscription is not missed.
     */
    private void confirmed(Void ignored, Throwable failure) {
        if (failure != null) {
            Subscription failed;
            synchronized (this) {
                failed = subscription;
                subscription = null; // subscribe again after the next lost try
            }
            if (failed != null) {
                failed.close();
            }
            outage(election.subscribeFailure(failure));
            return;
        }
        synchronized (this) {
            if (state != State.CONFIRMING) {
                return;
            }
            state = State.TRYING;
            rung = false;
        }
        attempt();
    }

    /** An announcement on the election's channel: a leader resigned or was elected. */
    @Override
    public void message(String channel, String message) {
        ring();
    }

    /** The client was closed: the next try fails naming the closed connection. */
    @Override
    public void closed() {
        ring();
    }

    private void ring() {
        synchronized (this) {
            if (state != State.WAITING) {
                rung = state == State.TRYING; // while confirming, the try after the confirmation comes anyway
                return;
            }
            state = State.TRYING;
            if (wake != null) {
                wake.cancel();
            }
        }
        attempt();
    }

    private void woken() {
        synchronized (this) {
            if (state != State.WAITING) {
                return;
            }
            state = State.TRYING;
        }
        attempt();
    }

    private void expired() {
        Throwable last;
        synchronized (this) {
            if (state == State.TRYING) {
                return; // the try's answer decides: a win counts, else the campaign ends then
            }
            last = outage;
        }
        if (last != null) {
            result.completeExceptionally(last); // Redis was unavailable until the end: say why
        } else {
            result.complete(null);
        }
    }

    /** Ends the campaign however it ended: stops its timers, unsubscribes, lets the next campaign start. */
    private void ended(boolean cancelled) {
        Subscription s;
        CompletableFuture<Void> before;
        synchronized (this) {
            state = State.DONE;
            s = subscription;
            before = previous;
            if (wake != null) {
                wake.cancel();
            }
            if (expiry != null) {
                expiry.cancel();
            }
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
