package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.MeasuredWait;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;
import io.coordis.internal.lease.ReleaseWaiter;
import io.coordis.internal.redis.PubSubListener;
import io.coordis.internal.redis.Replies;
import io.coordis.internal.redis.Subscription;
import io.coordis.lock.Permit;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition of a {@link QueuedSemaphore}, driven by replies, pub/sub and the client's timer, never by a
 * parked thread. A try that finds the permits busy takes a place in line at Redis; the request then listens on the
 * release channel and tries again when a release is announced, when the earliest holder's TTL runs out (plus
 * jitter), and every third of {@link QueuedSemaphore#PLACE} to renew its place. A release wakes only the request first in line. It ends with a permit, with empty
 * when the wait ran out (leaving the line), with a failure, or cancelled: then its token is taken out of the
 * semaphore, so a permit granted in the same instant is released and its place in line is gone.
 *
 * <p>A try that fails transiently is made again while the wait lasts, as {@link Outages} says.
 *
 * <p>Every step runs on the client's thread; the future completes there. One script call in flight at a time.
 */
final class PermitRequest implements PubSubListener {
    private static final long RENEW_PLACE_NANOS = QueuedSemaphore.PLACE.toNanos() / 3;

    private final QueuedSemaphore semaphore;
    private final Timer timer;
    private final int permits;
    /** Whether the request waits at all; with a zero wait it is one try that takes no place in line. */
    private final boolean waits;
    /** Ticker time the wait ends; meaningless when {@link #forever}. */
    private final long deadline;
    private final boolean forever;
    /** This request's token; a new one after a failed try, whose grant or place the old one's release removes. */
    private volatile String token;
    private final Telemetry.Wait telemetry;
    private final long started;
    private final CompletableFuture<Optional<Permit>> result = new CompletableFuture<>();

    // guarded by this
    private boolean inFlight;
    private boolean rung;
    private boolean finished;
    private Subscription subscription;
    private Timer.Handle next;
    private Timer.Handle closing;
    /** Transient failures in a row, which the wait rides out ({@link Outages}). */
    private int outages;

    /** A request for {@code permits} waiting at most {@code wait}, or as long as it takes when it is null. */
    PermitRequest(QueuedSemaphore semaphore, int permits, Duration wait) {
        this.semaphore = semaphore;
        this.timer = semaphore.timer;
        this.permits = permits;
        this.forever = wait == null;
        this.waits = forever || !wait.isZero();
        this.token = semaphore.options.newToken();
        this.telemetry = semaphore.telemetry.acquiring(semaphore.name());
        this.started = MeasuredWait.start(telemetry, timer.ticker());
        this.deadline = forever ? 0 : timer.now() + wait.toNanos();
    }

    CompletableFuture<Optional<Permit>> start() {
        result.whenComplete((permit, failure) -> {
            if (result.isCancelled()) {
                abandon();
            }
        });
        synchronized (this) {
            closing = timer.onClose(() -> fail(new CoordisException(semaphore.node.address(),
                    semaphore.object() + ": the client was closed while waiting", null)));
        }
        send();
        return result;
    }

    /** Sends the next try, unless one is in flight or the request is over. */
    private void send() {
        synchronized (this) {
            if (finished || inFlight) {
                return;
            }
            inFlight = true;
            rung = false;
            cancelNextLocked();
        }
        long start = timer.now();
        CompletableFuture<Object> reply;
        try {
            reply = semaphore.sendAcquire(token, permits, waits ? QueuedSemaphore.PLACE.toMillis() : 0);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        // replies arrive on an I/O thread: carry on on the client's thread
        reply.whenComplete((r, failure) -> timer.execute(() -> answered(start, r, failure)));
    }

    private void answered(long start, Object reply, Throwable failure) {
        if (result.isDone()) {
            synchronized (this) {
                inFlight = false;
            }
            semaphore.releaseInBackground(token); // cancelled meanwhile: a grant is given back, the place left
            return;
        }
        if (failure != null) {
            outage(semaphore.node.translate(failure));
            return;
        }
        List<?> answer;
        long code;
        try {
            answer = Replies.list(reply, 2, QueuedSemaphore.ACQUIRE, semaphore.node.address());
            code = Replies.number(answer, 0, QueuedSemaphore.ACQUIRE, semaphore.node.address());
            if (code == 1) {
                granted(Replies.number(answer, 1, QueuedSemaphore.ACQUIRE, semaphore.node.address()), start);
                return;
            }
            if (code == -1) {
                long count = Replies.number(answer, 1, QueuedSemaphore.ACQUIRE, semaphore.node.address());
                fail(new IllegalArgumentException(semaphore.object() + " has " + count + " permits, so " + permits
                        + " can never be granted: ask for at most " + count + ", or raise the count with setPermits"));
                return;
            }
            busy(Replies.number(answer, 1, QueuedSemaphore.ACQUIRE, semaphore.node.address()));
        } catch (CoordisException e) {
            semaphore.releaseInBackground(token);
            fail(e);
        }
    }

    private void granted(long fence, long start) {
        synchronized (this) {
            outages = 0;
        }
        HeldPermit permit = semaphore.permit(token, fence, permits, start);
        synchronized (this) {
            inFlight = false;
        }
        if (finish(Telemetry.Result.ACQUIRED) && result.complete(Optional.of(permit))) {
            return;
        }
        permit.abandon();
        semaphore.releaseInBackground(token); // cancelled in the same instant
    }

    private void busy(long holderPttlMillis) {
        synchronized (this) {
            outages = 0;
        }
        long now = timer.now();
        if (!waits || (!forever && now - deadline >= 0)) {
            synchronized (this) {
                inFlight = false;
            }
            if (waits) {
                semaphore.releaseInBackground(token); // leave the line
            }
            if (finish(waits ? Telemetry.Result.TIMEOUT : Telemetry.Result.BUSY)) {
                result.complete(Optional.empty());
            }
            return;
        }
        Subscription listening;
        synchronized (this) {
            listening = subscription;
        }
        if (listening == null) {
            listen();
            return;
        }
        long pause = Math.min(ReleaseWaiter.untilExpiry(holderPttlMillis), RENEW_PLACE_NANOS);
        if (!forever) {
            pause = Math.min(pause, deadline - now);
        }
        boolean again;
        boolean over;
        synchronized (this) {
            inFlight = false;
            over = finished;
            again = rung && !finished;
            if (!again && !finished) {
                next = timer.after(pause, this::send);
            }
        }
        if (over) {
            semaphore.releaseInBackground(token); // cancelled while this try was in flight: leave the line
        } else if (again) {
            send();
        }
    }

    /**
     * Subscribes to the release channel, then tries again at once: a release between the busy answer and the
     * subscription is not missed.
     */
    private void listen() {
        Subscription listening;
        try {
            listening = semaphore.node.subscribe(List.of(semaphore.channel), false, this);
        } catch (CoordisException e) {
            outage(e);
            return;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            semaphore.releaseInBackground(token);
            fail(new CoordisException(semaphore.node.address(), "interrupted while subscribing", e));
            return;
        }
        boolean closeNow;
        synchronized (this) {
            inFlight = false;
            closeNow = finished;
            subscription = listening;
        }
        if (closeNow) {
            listening.close();
            semaphore.releaseInBackground(token); // cancelled while this try was in flight: leave the line
            return;
        }
        listening.ready().whenComplete((ok, failure) -> timer.execute(() -> {
            if (failure != null) {
                synchronized (this) {
                    subscription = null; // subscribe again on the next busy answer
                }
                listening.close();
                outage(semaphore.node.translate(failure));
            } else {
                send();
            }
        }));
    }

    /**
     * A try or the subscription failed: its token is taken out of the semaphore (the try may have been granted or
     * taken a place). A transient failure is tried again, with a new token, after {@link Outages}' pause while the
     * wait lasts; otherwise the request fails.
     */
    private void outage(Throwable failure) {
        semaphore.releaseInBackground(token);
        long left = forever ? Long.MAX_VALUE : deadline - timer.now();
        if (!waits || left <= 0 || !Outages.ridesOut(failure)) {
            fail(failure);
            return;
        }
        synchronized (this) {
            inFlight = false;
            if (finished) {
                return;
            }
            token = semaphore.options.newToken();
            cancelNextLocked();
            next = timer.after(Outages.pauseNanos(failure, ++outages, left), this::send);
        }
    }

    /**
     * A release names the token first in line, whose turn it may be: the others could not be granted before it, and
     * stay asleep. A change of the permit count wakes everyone ({@link QueuedSemaphore#EVERYONE}).
     */
    @Override
    public void message(String channel, String message) {
        if (message.equals(token) || message.equals(QueuedSemaphore.EVERYONE)) {
            wake();
        }
    }

    private void wake() {
        synchronized (this) {
            if (finished) {
                return;
            }
            if (inFlight) {
                rung = true;
                return;
            }
            cancelNextLocked();
        }
        timer.execute(this::send);
    }

    @Override
    public void gap() {
        wake(); // releases may have been missed: try again
    }

    @Override
    public void closed() {
        fail(new CoordisException(semaphore.node.address(), semaphore.object()
                + ": the client was closed while waiting", null));
    }

    /** Cancelled by the caller: take the token out of the semaphore unless a try in flight will. */
    private void abandon() {
        boolean flying;
        synchronized (this) {
            flying = inFlight;
        }
        finish(Telemetry.Result.INTERRUPTED);
        if (!flying) {
            semaphore.releaseInBackground(token);
        }
    }

    private void fail(Throwable failure) {
        if (finish(Telemetry.Result.ERROR)) {
            result.completeExceptionally(failure);
        }
    }

    /** Ends the request once: stops listening and the timers; {@code false} when it had ended already. */
    private boolean finish(Telemetry.Result how) {
        Subscription listening;
        synchronized (this) {
            if (finished) {
                return false;
            }
            finished = true;
            cancelNextLocked();
            if (closing != null) {
                closing.cancel();
            }
            listening = subscription;
        }
        if (listening != null) {
            listening.close();
        }
        MeasuredWait.ended(telemetry, timer.ticker(), how, started);
        return true;
    }

    private void cancelNextLocked() {
        if (next != null) {
            next.cancel();
            next = null;
        }
    }

    @Override
    public String toString() {
        return "PermitRequest[" + semaphore.object() + ", " + permits + ", "
                + (forever ? "no deadline" : TimeUnit.NANOSECONDS.toMillis(deadline - timer.now()) + " ms left") + "]";
    }
}
