package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.internal.Timer;
import io.coordis.internal.contest.Answer;
import io.coordis.internal.contest.Contest;
import io.coordis.internal.contest.Contestant;
import io.coordis.internal.lease.ReleaseWaiter;
import io.coordis.internal.redis.ChannelRegistration;
import io.coordis.internal.redis.PubSubListener;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.Permit;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;

/**
 * One acquisition of a {@link QueuedSemaphore}: a {@link Contest} driven by replies, pub/sub and the client's timer,
 * never by a parked thread. A try that finds the permits busy takes a place in line at Redis; the request then
 * listens on the release channel and tries again when a release is announced, when the earliest holder's TTL runs
 * out (plus jitter), and every third of {@link QueuedSemaphore#PLACE} to renew its place. A release wakes only the
 * request first in line. It ends with a permit, with empty when the wait ran out (leaving the line), with a
 * failure, or cancelled: then its token is taken out of the semaphore, so a permit granted in the same instant is
 * released and its place in line is gone.
 *
 * <p>A try that fails transiently is made again, with a new token, while the wait lasts, as the contest does for
 * every wait.
 *
 * <p>Every step runs on the client's thread; the future completes there. One script call in flight at a time.
 */
final class PermitRequest implements PubSubListener, Contestant<Optional<Permit>> {
    private static final long RENEW_PLACE_NANOS = QueuedSemaphore.PLACE.toNanos() / 3;

    private final QueuedSemaphore semaphore;
    private final Timer timer;
    private final int permits;
    /** Whether the request waits at all; with a zero wait it is one try that takes no place in line. */
    private final boolean waits;
    /** This request's token; a new one after a failed try, whose grant or place the old one's release removes. */
    private volatile String token;
    private final Contest<Optional<Permit>> contest;

    // guarded by this
    private ChannelRegistration subscription;
    private Timer.Handle closing;

    /** A request for {@code permits} waiting at most {@code wait}, or as long as it takes when it is null. */
    PermitRequest(QueuedSemaphore semaphore, int permits, Duration wait) {
        this.semaphore = semaphore;
        this.timer = semaphore.timer;
        this.permits = permits;
        this.waits = wait == null || !wait.isZero();
        this.token = semaphore.options.newToken();
        this.contest = new Contest<>(this, timer, semaphore.telemetry.acquiring(semaphore.name()),
                wait == null ? Long.MAX_VALUE : wait.toNanos(), wait == null, Contest.Deadline.LAST_TRY,
                Optional.empty());
    }

    CompletableFuture<Optional<Permit>> start() {
        synchronized (this) {
            closing = timer.onClose(() -> contest.fail(new CoordisException(semaphore.node.address(),
                    semaphore.object() + ": the client was closed while waiting", null)));
        }
        return contest.start();
    }

    /** Sends the next try; its answer is read on the client's thread. */
    @Override
    public CompletableFuture<Answer<Optional<Permit>>> attempt(boolean ignored) {
        String t = token;
        long start = timer.now();
        CompletableFuture<Object> reply;
        try {
            reply = semaphore.sendAcquire(t, permits, waits ? QueuedSemaphore.PLACE.toMillis() : 0);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Answer<Optional<Permit>>> answer = new CompletableFuture<>();
        // replies arrive on an I/O thread: carry on on the client's thread
        reply.whenComplete((r, failure) -> timer.execute(() -> {
            if (failure != null && !contest.isOver()) {
                answer.completeExceptionally(semaphore.node.translate(failure));
            } else {
                answer.complete(failure != null ? Answer.busy(-2) : read(t, start, r));
            }
        }));
        return answer;
    }

    /** A grant, or busy with the earliest holder's time left; a refusal or a malformed reply ends the request. */
    private Answer<Optional<Permit>> read(String t, long start, Object reply) {
        if (contest.isOver()) {
            return Answer.busy(-2); // cancelled meanwhile: the close takes the token out
        }
        try {
            List<?> answer = Replies.list(reply, 2, QueuedSemaphore.ACQUIRE, semaphore.node.address());
            long code = Replies.number(answer, 0, QueuedSemaphore.ACQUIRE, semaphore.node.address());
            long value = Replies.number(answer, 1, QueuedSemaphore.ACQUIRE, semaphore.node.address());
            if (code == 1) {
                return Answer.won(Optional.of(semaphore.permit(t, value, permits, start)));
            }
            if (code == -1) {
                contest.fail(new IllegalArgumentException(semaphore.object() + " has " + value + " permits, so "
                        + permits + " can never be granted: ask for at most " + value
                        + ", or raise the count with setPermits"));
            }
            return Answer.busy(value);
        } catch (CoordisException e) {
            semaphore.releaseInBackground(t);
            contest.fail(e);
            return Answer.busy(-2);
        }
    }

    /**
     * The first busy answer subscribes to the release channel, then tries again at once: a release between the busy
     * answer and the subscription is not missed. Later ones wait for a release naming this token, the earliest
     * holder's TTL, or the time to renew the place, whichever comes first.
     */
    @Override
    public CompletableFuture<Boolean> pause(Answer<Optional<Permit>> busy, long maxNanos) {
        ChannelRegistration listening;
        synchronized (this) {
            listening = subscription;
        }
        if (listening == null) {
            return listen();
        }
        return contest.nap(Math.min(Math.min(ReleaseWaiter.untilExpiry(busy.holderMillis()), RENEW_PLACE_NANOS),
                maxNanos));
    }

    private CompletableFuture<Boolean> listen() {
        ChannelRegistration listening;
        try {
            listening = semaphore.node.subscribe(List.of(semaphore.channel), false, this);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(
                    new CoordisException(semaphore.node.address(), "interrupted while subscribing", e));
        }
        boolean closeNow;
        synchronized (this) {
            closeNow = contest.isOver();
            if (!closeNow) {
                subscription = listening;
            }
        }
        if (closeNow) {
            listening.close(); // cancelled while this try was in flight: the close leaves the line
            return CompletableFuture.failedFuture(new CancellationException());
        }
        CompletableFuture<Boolean> ready = new CompletableFuture<>();
        listening.ready().whenComplete((ok, failure) -> timer.execute(() -> {
            if (failure != null) {
                synchronized (this) {
                    subscription = null; // subscribe again on the next busy answer
                }
                listening.close();
                ready.completeExceptionally(semaphore.node.translate(failure));
            } else {
                ready.complete(true);
            }
        }));
        return ready;
    }

    /** A try or the subscription failed: its token is taken out (it may have been granted or taken a place). */
    @Override
    public void failed(Throwable failure) {
        semaphore.releaseInBackground(token);
        token = semaphore.options.newToken();
    }

    @Override
    public boolean rings() {
        return true;
    }

    /**
     * A release names the token first in line, whose turn it may be: the others could not be granted before it, and
     * stay asleep. A change of the permit count wakes everyone ({@link QueuedSemaphore#EVERYONE}).
     */
    @Override
    public void message(String channel, String message) {
        if (message.equals(token) || message.equals(QueuedSemaphore.EVERYONE)) {
            contest.ring();
        }
    }

    @Override
    public void gap() {
        contest.ring(); // releases may have been missed: try again
    }

    @Override
    public void closed() {
        contest.fail(new CoordisException(semaphore.node.address(), semaphore.object()
                + ": the client was closed while waiting", null));
    }

    @Override
    public void undo(Optional<Permit> won) {
        won.ifPresent(p -> ((HeldPermit) p).abandon()); // cancelled in the same instant: the close releases it
    }

    /** Stops listening and the close watch. */
    @Override
    public void ended(Optional<Permit> won, Throwable failure) {
        ChannelRegistration listening;
        Timer.Handle c;
        synchronized (this) {
            listening = subscription;
            c = closing;
        }
        if (c != null) {
            c.cancel();
        }
        if (listening != null) {
            listening.close();
        }
    }

    /** Cancelled, or out of time after taking a place: the token leaves the semaphore. */
    @Override
    public void close(Optional<Permit> won, Throwable failure) {
        if (failure instanceof CancellationException || won != null && won.isEmpty() && waits) {
            semaphore.releaseInBackground(token);
        }
    }

    @Override
    public String toString() {
        long left = contest.left();
        return "PermitRequest[" + semaphore.object() + ", " + permits + ", "
                + (left == Long.MAX_VALUE ? "no deadline" : TimeUnit.NANOSECONDS.toMillis(left) + " ms left") + "]";
    }
}
