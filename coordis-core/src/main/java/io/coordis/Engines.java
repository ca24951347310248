package io.coordis;

import io.coordis.doctor.Doctor;
import io.coordis.election.ElectionOptions;
import io.coordis.inspect.Inspector;
import io.coordis.internal.ClientTimer;
import io.coordis.internal.Timer;
import io.coordis.internal.doctor.ServerDoctor;
import io.coordis.internal.election.Elections;
import io.coordis.internal.inspect.ScanningInspector;
import io.coordis.internal.latch.Latches;
import io.coordis.internal.lock.Locks;
import io.coordis.internal.queue.Queues;
import io.coordis.internal.ratelimit.RateLimiters;
import io.coordis.internal.redis.ClientConnections;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.signal.PubSubSignals;
import io.coordis.lock.LockOptions;
import io.coordis.queue.QueueOptions;
import io.coordis.signal.Signals;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link Coordis} client is made of: its timer, its connections to Redis, the factory of each primitive over
 * them, and the replication it gives options that set none, built together from the builder's settings and closed
 * together. {@code Coordis} prepares the options a caller gives and asks these factories; like the client, it is
 * thread-safe.
 */
final class Engines implements AutoCloseable {
    final Timer timer;
    final Namespace namespace;
    final ClientConnections connections;
    final Locks locks;
    final Signals signals;
    final Elections elections;
    private final Queues queues;
    private final Latches latches;
    private final RateLimiters rateLimiters;
    final Inspector inspector;
    private final Replication replication;

    /**
     * Opens the connections and builds the factories.
     *
     * @throws IllegalArgumentException when a URL is malformed, or the URLs do not combine
     * @throws CoordisException when Redis is unreachable or refuses the credentials
     */
    Engines(ClientSettings b) {
        this.namespace = Namespace.of(b.keyPrefix);
        this.timer = new ClientTimer(b.ticker, b.callbackExecutor);
        try {
            this.connections = ClientConnections.open(b.urls, b.replicaUrls, b.commandTimeout, b.tls, timer,
                    b.clientResources);
        } catch (RuntimeException e) {
            timer.close();
            throw e;
        }
        List<RedisNode> nodes = connections.nodes();
        this.locks = new Locks(nodes, namespace, timer, b.telemetry);
        this.elections = new Elections(nodes, namespace, timer, b.telemetry);
        this.signals = PubSubSignals.over(nodes.get(0), connections.replicas(), namespace, timer, b.maxSignalBytes,
                b.telemetry);
        this.queues = new Queues(nodes.get(0), namespace, timer, b.telemetry);
        this.latches = new Latches(nodes.get(0), namespace, timer, b.telemetry);
        this.rateLimiters = new RateLimiters(nodes.get(0), namespace, timer, b.telemetry);
        this.inspector = new ScanningInspector(nodes);
        this.replication = b.replication;
    }

    /** {@code options} with this client's replication unless they set their own. */
    LockOptions replicated(LockOptions options) {
        Objects.requireNonNull(options, "lock options must not be null");
        return options.replication().isEmpty() && !replication.isNone() ? options.withReplication(replication)
                : options;
    }

    /** {@code options} with this client's replication unless they set their own. */
    ElectionOptions replicated(ElectionOptions options) {
        Objects.requireNonNull(options, "election options must not be null");
        return options.replication().isEmpty() && !replication.isNone() ? options.withReplication(replication)
                : options;
    }

    /** {@code options} with this client's replication unless they set their own. */
    QueueOptions replicated(QueueOptions options) {
        Objects.requireNonNull(options, "queue options must not be null");
        return options.replication().isEmpty() && !replication.isNone() ? options.withReplication(replication)
                : options;
    }

    /** The queues' factory, unless the client talks to several independent masters. */
    Queues queues() {
        return onOneRedis(queues, "queues live", "queues");
    }

    /** The count-down latches' factory, unless the client talks to several independent masters. */
    Latches latches() {
        return onOneRedis(latches, "a count-down latch lives", "latches");
    }

    /** The rate limiters' factory, unless the client talks to several independent masters. */
    RateLimiters rateLimiters() {
        return onOneRedis(rateLimiters, "rate limiters live", "rate limiters");
    }

    /**
     * {@code factory}, of a kind that {@code lives} on one Redis, unless the client talks to several independent
     * masters: then a failure that says to connect a separate client for {@code what}.
     */
    private <T> T onOneRedis(T factory, String lives, String what) {
        int nodes = connections.nodes().size();
        if (nodes > 1) {
            throw new IllegalStateException(lives + " on one Redis, but this client talks to " + nodes
                    + " independent masters (Redlock): connect a separate client to one Redis for " + what);
        }
        return factory;
    }

    /** A doctor of every node, checking the keys and channels under this client's key prefix. */
    Doctor doctor() {
        return new ServerDoctor(connections.nodes(), namespace);
    }

    /** The nodes' addresses, {@code host:port}, separated by commas. */
    String address() {
        return String.join(",", connections.nodes().stream().map(RedisNode::address).toList());
    }

    /** Closes the connections, then the timer. */
    @Override
    public void close() {
        connections.close();
        timer.close();
    }
}
