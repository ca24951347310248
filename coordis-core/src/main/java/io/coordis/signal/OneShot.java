package io.coordis.signal;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A {@link Waiter} completed by the first message any node delivers; later ones (including copies of the
 * same signal from replicas) are ignored. An optional recheck runs after every gap (latched events).
 */
final class OneShot implements Waiter, Fanout.Sink {
    private final CompletableFuture<Signal> result = new CompletableFuture<>();
    private final AtomicLong gaps = new AtomicLong();
    private final List<String> channels;
    private final Consumer<OneShot> recheck;
    private volatile Fanout fanout;

    OneShot(List<String> channels, Consumer<OneShot> recheck) {
        this.channels = List.copyOf(channels);
        this.recheck = recheck;
    }

    void attach(Fanout fanout) {
        this.fanout = fanout;
        if (result.isCancelled()) {
            fanout.close();
        }
    }

    /** Completes this waiter unless it completed already. */
    void complete(Signal signal) {
        result.complete(signal);
    }

    @Override
    public void message(int node, String channel, String data) {
        result.complete(new Signal(channel, data));
    }

    @Override
    public void gap(int node) {
        gaps.incrementAndGet();
        if (recheck != null && !result.isDone()) {
            recheck.accept(this);
        }
    }

    @Override
    public void clientClosed(String address) {
        result.completeExceptionally(new io.coordis.CoordisException(address, "waiter on " + channels
                + ": the client was closed before a signal arrived", null));
    }

    @Override
    public Optional<Signal> await(Duration timeout) throws InterruptedException {
        long nanos = io.coordis.internal.Durations.saturatedNanos(timeout);
        if (nanos <= 0) {
            return poll();
        }
        try {
            return Optional.of(result.get(nanos, TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (CancellationException e) {
            throw closed();
        } catch (ExecutionException e) {
            throw clientClosed(e);
        }
    }

    @Override
    public Optional<Signal> poll() {
        if (result.isCancelled()) {
            throw closed();
        }
        try {
            return Optional.ofNullable(result.getNow(null));
        } catch (java.util.concurrent.CompletionException e) {
            throw clientClosed(e);
        }
    }

    /** The failure of a waiter whose client was closed, thrown anew so the caller's stack shows. */
    static io.coordis.CoordisException clientClosed(Exception e) {
        if (e.getCause() instanceof io.coordis.CoordisException c) {
            return new io.coordis.CoordisException(c.node().orElse(null), c.getMessage(), c);
        }
        throw new IllegalStateException("waiter failed", e.getCause());
    }

    private IllegalStateException closed() {
        return new IllegalStateException("waiter on " + channels + " was closed before a signal arrived");
    }

    @Override
    public CompletionStage<Signal> whenSignalled() {
        return result.minimalCompletionStage();
    }

    @Override
    public List<String> channels() {
        return channels;
    }

    @Override
    public long gaps() {
        return gaps.get();
    }

    @Override
    public void close() {
        result.cancel(false);
        Fanout f = fanout;
        if (f != null) {
            f.close();
        }
    }

    @Override
    public String toString() {
        return "Waiter" + channels + (result.isDone() && !result.isCancelled() ? "[signalled]" : "");
    }
}
