package io.coordis.signal;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.redis.PubSubListener;
import io.coordis.internal.redis.RedisNode;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
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

    private final List<io.coordis.internal.redis.Subscription> parts;
    private final AtomicBoolean open = new AtomicBoolean(true);

    private Fanout(List<io.coordis.internal.redis.Subscription> parts) {
        this.parts = parts;
    }

    /**
     * Subscribes {@code sink} to {@code names} after {@code prefix} (may be empty; escaped in patterns) on every
     * node, handing it the channels of messages without the prefix, and blocks until each confirmed or failed
     * (at most the node's command timeout; the nodes are asked at once).
     *
     * @throws CoordisException     when no node confirmed (the first failure, the others suppressed)
     * @throws InterruptedException when interrupted (nothing stays subscribed)
     */
    static Fanout open(List<RedisNode> nodes, String prefix, Collection<String> names, boolean patterns, Sink sink,
                       Telemetry telemetry) throws InterruptedException {
        List<String> wire = names.stream().map(n -> (patterns ? Globs.escape(prefix) : prefix) + n).toList();
        List<io.coordis.internal.redis.Subscription> parts = new ArrayList<>();
        List<RedisNode> asked = new ArrayList<>();
        CoordisException failure = null;
        for (int i = 0; i < nodes.size(); i++) {
            int index = i;
            String address = nodes.get(i).address();
            try {
                parts.add(nodes.get(i).subscribe(wire, patterns, new PubSubListener() {
                    @Override
                    public void message(String channel, String message) {
                        String name = channel.startsWith(prefix) ? channel.substring(prefix.length()) : channel;
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
                parts.forEach(io.coordis.internal.redis.Subscription::close);
                throw e;
            }
        }
        List<io.coordis.internal.redis.Subscription> confirmed = new ArrayList<>();
        try {
            for (int i = 0; i < parts.size(); i++) {
                RedisNode node = asked.get(i);
                try {
                    node.await(parts.get(i).ready(), node.commandTimeout());
                    confirmed.add(parts.get(i));
                } catch (CoordisException e) {
                    parts.get(i).close();
                    failure = add(failure, e);
                }
            }
        } catch (InterruptedException | RuntimeException e) {
            parts.forEach(io.coordis.internal.redis.Subscription::close);
            throw e;
        }
        if (confirmed.isEmpty()) {
            throw failure != null ? failure : new IllegalStateException("no Redis node to subscribe on");
        }
        if (failure != null) {
            log.debug("subscribed to {} on {} of {} nodes: {}", names, confirmed.size(), nodes.size(), failure.getMessage());
        }
        return new Fanout(confirmed);
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
            parts.forEach(io.coordis.internal.redis.Subscription::close);
        }
    }
}
