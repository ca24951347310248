package io.coordis.internal.signal;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.redis.ChannelRegistration;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.PubSubListener;
import io.coordis.internal.redis.Node;

import io.coordis.internal.Timer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One registration on several nodes (a master and its replicas): subscribes on all of them at once and
 * tells a {@link Sink} which node delivered what, and the client's {@link Telemetry} each message and gap. Made
 * only when at least one node confirmed; nodes that failed are left out.
 */
final class Fanout implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Fanout.class);

    /** What the nodes deliver, tagged with the node's index in the list given to {@link #open}. */
    interface Sink {
        void message(int node, String channel, String data);

        void gap(int node);

        /**
         * The client was closed (told once per node, on the closing thread): nothing more will arrive, so a
         * caller waiting can stop waiting. Implementations must be idempotent.
         */
        void clientClosed(String address);
    }

    private final List<ChannelRegistration> parts;
    private final AtomicBoolean open = new AtomicBoolean(true);

    private Fanout(List<ChannelRegistration> parts) {
        this.parts = parts;
    }

    /**
     * Subscribes {@code sink} to {@code names} in {@code namespace} (its prefix escaped in patterns) on every
     * node, handing it the channels of messages without the prefix, and blocks until each confirmed or failed
     * (at most the node's command timeout; the nodes are asked at once): {@link #openAsync}, waited for.
     *
     * @throws CoordisException     when no node confirmed (the first failure, the others suppressed)
     * @throws InterruptedException when interrupted (nothing stays subscribed)
     */
    static Fanout open(List<? extends Node> nodes, Namespace namespace, Collection<String> names, boolean patterns,
                       Sink sink, Telemetry telemetry, Timer timer) throws InterruptedException {
        CompletableFuture<Fanout> opening = openAsync(nodes, namespace, names, patterns, sink, telemetry, timer);
        try {
            return opening.get();
        } catch (InterruptedException e) {
            opening.cancel(false);
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /**
     * Like {@link #open}, without waiting: the future completes (on a Lettuce or timer thread) when each node
     * confirmed or failed, with the fanout of those that confirmed, or fails with a {@link CoordisException} when
     * none did. Cancelling it unsubscribes everything. Only a client's first subscription on a node waits, for its
     * pub/sub connection to open (at most the command timeout).
     *
     * @throws InterruptedException when interrupted while a pub/sub connection opens (nothing stays subscribed)
     */
    static CompletableFuture<Fanout> openAsync(List<? extends Node> nodes, Namespace namespace,
                                               Collection<String> names, boolean patterns, Sink sink,
                                               Telemetry telemetry, Timer timer)
            throws InterruptedException {
        List<String> wire = names.stream().map(n -> patterns ? namespace.pattern(n) : namespace.channel(n)).toList();
        List<ChannelRegistration> parts = new ArrayList<>();
        List<Node> asked = new ArrayList<>();
        CoordisException failure = null;
        for (int i = 0; i < nodes.size(); i++) {
            int index = i;
            String address = nodes.get(i).address();
            try {
                parts.add(nodes.get(i).subscribe(wire, patterns, new PubSubListener() {
                    @Override
                    public void message(String channel, String message) {
                        String name = namespace.local(channel);
                        telemetry.received(name);
                        sink.message(index, name, message);
                    }

                    @Override
                    public void gap() {
                        telemetry.gap(address);
                        sink.gap(index);
                    }

                    @Override
                    public void closed() {
                        sink.clientClosed(address);
                    }
                }));
                asked.add(nodes.get(i));
            } catch (CoordisException e) {
                failure = add(failure, e);
            } catch (InterruptedException e) {
                parts.forEach(ChannelRegistration::close);
                throw e;
            }
        }
        CompletableFuture<Fanout> opened = new CompletableFuture<>();
        opened.whenComplete((f, x) -> {
            if (f == null) {
                parts.forEach(ChannelRegistration::close); // failed or cancelled
            }
        });
        if (parts.isEmpty()) {
            opened.completeExceptionally(failure != null ? failure
                    : new IllegalStateException("no Redis node to subscribe on"));
            return opened;
        }
        Confirmations confirmations = new Confirmations(parts, names, failure, opened);
        for (int i = 0; i < parts.size(); i++) {
            int part = i;
            Node node = asked.get(i);
            Duration timeout = node.commandTimeout();
            timer.failAfter(parts.get(i).ready().copy(), timeout.toNanos()).whenComplete((v, x) -> {
                Throwable cause = x instanceof CompletionException && x.getCause() != null ? x.getCause() : x;
                confirmations.answered(part, cause == null ? null
                        : node.translate(cause instanceof TimeoutException ? new TimeoutException(
                        "SUBSCRIBE not confirmed within " + timeout.toMillis() + " ms") : cause));
            });
        }
        return opened;
    }

    /** Counts the nodes' answers; the last one decides. */
    private static final class Confirmations {
        private final List<ChannelRegistration> parts;
        private final boolean[] confirmed;
        private final Collection<String> names;
        private final CompletableFuture<Fanout> opened;
        private CoordisException failure;
        private int waiting;

        Confirmations(List<ChannelRegistration> parts, Collection<String> names,
                      CoordisException failure, CompletableFuture<Fanout> opened) {
            this.parts = parts;
            this.confirmed = new boolean[parts.size()];
            this.names = names;
            this.failure = failure;
            this.opened = opened;
            this.waiting = parts.size();
        }

        void answered(int part, CoordisException failed) {
            List<ChannelRegistration> ok = new ArrayList<>();
            CoordisException first;
            synchronized (this) {
                if (failed == null) {
                    confirmed[part] = true;
                } else {
                    failure = add(failure, failed);
                }
                if (--waiting > 0) {
                    return;
                }
                for (int i = 0; i < parts.size(); i++) {
                    if (confirmed[i]) {
                        ok.add(parts.get(i));
                    } else {
                        parts.get(i).close();
                    }
                }
                first = failure;
            }
            if (ok.isEmpty()) {
                opened.completeExceptionally(first);
                return;
            }
            if (first != null) {
                log.debug("subscribed to {} on {} of {} nodes: {}", names, ok.size(), parts.size(), first.getMessage());
            }
            Fanout fanout = new Fanout(ok);
            if (!opened.complete(fanout)) {
                fanout.close(); // cancelled meanwhile
            }
        }
    }

    private static CoordisException add(CoordisException first, CoordisException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    @Override
    public void close() {
        if (open.compareAndSet(true, false)) {
            parts.forEach(ChannelRegistration::close);
        }
    }
}
