package io.coordis.signal;

import io.coordis.internal.Durations;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Gathering}: keeps each channel's first signal and completes when every channel has one. */
final class AllOf implements Gathering, Fanout.Sink {
    private final List<String> channels;
    private final Map<String, Signal> firsts = new ConcurrentHashMap<>();
    private final CompletableFuture<Map<String, Signal>> result = new CompletableFuture<>();
    private final AtomicLong gaps = new AtomicLong();
    private volatile Fanout fanout;

    AllOf(List<String> channels) {
        this.channels = List.copyOf(channels);
    }

    void attach(Fanout fanout) {
        this.fanout = fanout;
        if (result.isCancelled()) {
            fanout.close();
        }
    }

    @Override
    public void message(int node, String channel, String data) {
        if (firsts.putIfAbsent(channel, new Signal(channel, data)) == null && firsts.size() == channels.size()) {
            result.complete(ordered());
        }
    }

    private Map<String, Signal> ordered() {
        Map<String, Signal> m = new LinkedHashMap<>();
        for (String c : channels) {
            Signal s = firsts.get(c);
            if (s != null) {
                m.put(c, s);
            }
        }
        return Collections.unmodifiableMap(m);
    }

    @Override
    public void gap(int node) {
        gaps.incrementAndGet();
    }

    @Override
    public void clientClosed(String address) {
        result.completeExceptionally(new io.coordis.CoordisException(address, "gathering on " + channels
                + ": the client was closed before every channel delivered", null));
    }

    @Override
    public Optional<Map<String, Signal>> await(Duration timeout) throws InterruptedException {
        long nanos = Durations.saturatedNanos(timeout);
        try {
            if (nanos <= 0) {
                if (result.isCancelled()) {
                    throw closed();
                }
                try {
                    return Optional.ofNullable(result.getNow(null));
                } catch (java.util.concurrent.CompletionException e) {
                    throw OneShot.clientClosed(e);
                }
            }
            return Optional.of(result.get(nanos, TimeUnit.NANOSECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (CancellationException e) {
            throw closed();
        } catch (ExecutionException e) {
            throw OneShot.clientClosed(e);
        }
    }

    private IllegalStateException closed() {
        return new IllegalStateException("gathering on " + channels + " was closed before every channel delivered");
    }

    @Override
    public Map<String, Signal> received() {
        return ordered();
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
}
