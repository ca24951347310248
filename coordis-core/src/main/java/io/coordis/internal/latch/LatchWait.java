package io.coordis.internal.latch;

import io.coordis.CoordisException;
import io.coordis.internal.Durations;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.ChannelRegistration;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.PubSubListener;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One wait for a latch to open, without a thread: subscribe to the latch's channel, then read the count, so an
 * opening between the two is heard or read; read again after every reconnect (a gap may have swallowed the opening).
 * The opening message, a count of zero or the deadline ends it. A transient failure of the subscription or a read is
 * tried again after the backoff of {@link Outages} while the deadline allows; any other failure ends the wait.
 * Cancelling the result ends the wait and unsubscribes. Thread-safe.
 */
final class LatchWait implements PubSubListener {
    private final ExpiringLatch latch;
    private final Node node;
    private final Timer timer;
    private final String channel;
    private final long deadline;
    private final long nanos;
    private final CompletableFuture<Boolean> result = new CompletableFuture<>();
    private final AtomicInteger failures = new AtomicInteger();
    private volatile ChannelRegistration registration;

    LatchWait(ExpiringLatch latch, Node node, Timer timer, String channel, long nanos) {
        this.latch = latch;
        this.node = node;
        this.timer = timer;
        this.channel = channel;
        this.nanos = nanos;
        this.deadline = Durations.saturatedAdd(timer.now(), nanos);
    }

    /** Starts the wait; the result is {@code true} once open, {@code false} at the deadline. */
    CompletableFuture<Boolean> start() {
        if (nanos <= 0) {
            read(); // a zero timeout only reads: no subscription, no retry
            return result;
        }
        Timer.Handle due = timer.coarse(nanos, () -> result.complete(false));
        Timer.Handle closing = timer.onClose(this::closed);
        result.whenComplete((v, f) -> {
            due.cancel();
            closing.cancel();
            ChannelRegistration r = registration;
            if (r != null) {
                r.close();
            }
        });
        subscribe();
        return result;
    }

    private void subscribe() {
        if (result.isDone()) {
            return;
        }
        ChannelRegistration r = node.subscribeLater(List.of(channel), false, this);
        registration = r;
        if (result.isDone()) {
            r.close(); // ended meanwhile: the cleanup may have missed this registration
            return;
        }
        r.ready().whenComplete((v, f) -> {
            if (f == null) {
                read();
            } else {
                r.close();
                failed(f, this::subscribe);
            }
        });
    }

    private void read() {
        if (result.isDone()) {
            return;
        }
        latch.count().whenComplete((count, f) -> {
            if (f != null) {
                failed(f, this::read);
            } else if (count <= 0) {
                result.complete(true);
            } else if (nanos <= 0) {
                result.complete(false);
            }
        });
    }

    /** Tries {@code again} after a pause when {@code failure} passes by itself and the deadline allows. */
    private void failed(Throwable failure, Runnable again) {
        long left = deadline - timer.now();
        if (result.isDone()) {
            return;
        }
        if (left <= 0 || !Outages.ridesOut(failure)) {
            result.completeExceptionally(node.translate(failure));
            return;
        }
        timer.delay(Outages.pauseNanos(failure, failures.incrementAndGet(), left)).thenRun(again);
    }

    @Override
    public void message(String channel, String message) {
        result.complete(true);
    }

    /** Reconnected: the opening may have been published while the connection was down. */
    @Override
    public void gap() {
        read();
    }

    @Override
    public void closed() {
        result.completeExceptionally(new CoordisException(node.address(), "the client was closed while waiting "
                + "for the latch to open", null));
    }
}
