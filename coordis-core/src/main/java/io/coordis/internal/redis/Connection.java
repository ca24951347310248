package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.internal.ClosedByClientException;
import io.coordis.internal.Timer;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.RedisCodec;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of a node for one codec (strings for scripts and commands, bytes for queues), opened in the
 * background: every command goes out with a deadline, a connection whose command timed out is replaced, and
 * nothing goes out once it is closed. Every command but pub/sub passes here. Thread-safe.
 *
 * <p>Deadlines run on the client's {@link Timer}; Lettuce's own command timeouts are off, so that a blocking pop
 * may wait longer than a command. A command without a reply in time fails with a {@link NodeUnavailableException}
 * naming the node, and the connection it went out on is replaced: a late reply could otherwise be taken for the
 * answer to a later command. Not on a cluster (see {@link #replaceAfterTimeout}), and not a dedicated connection,
 * whose one caller drops it instead. Failures leave as {@link CoordisException} naming the node.
 */
final class Connection<K, V> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);
    private final String address;
    private final Connector connector;
    private final RedisCodec<K, V> codec;
    private final Timer timer;
    private final Duration timeout;
    /** Whether a timeout replaces the connection (shared ones off a cluster) rather than leaving that to its owner. */
    private final boolean replacing;
    private final AtomicReference<CompletableFuture<StatefulConnection<K, V>>> connection;
    private volatile boolean closed;
    /** The one close of the connection, once asked for. */
    private final AtomicReference<CompletableFuture<Void>> closing = new AtomicReference<>();

    private Connection(String address, Connector connector, RedisCodec<K, V> codec, Timer timer, Duration timeout,
                       boolean replacing) {
        this.address = address;
        this.connector = connector;
        this.codec = codec;
        this.timer = timer;
        this.timeout = timeout;
        this.replacing = replacing;
        this.connection = new AtomicReference<>(connect());
    }

    /** A connection shared by every caller of a node, opening now, whose commands wait at most {@code timeout}. */
    static <K, V> Connection<K, V> shared(String address, Connector connector, RedisCodec<K, V> codec, Timer timer,
                                          Duration timeout) {
        return new Connection<>(address, connector, codec, timer, timeout, !connector.isCluster());
    }

    /** A connection of one caller at a time (blocking commands), opening now; its owner drops it after a failure. */
    static <K, V> Connection<K, V> dedicated(String address, Connector connector, RedisCodec<K, V> codec, Timer timer,
                                             Duration timeout) {
        return new Connection<>(address, connector, codec, timer, timeout, false);
    }

    /** The current connection: completes when it is open, fails when it could not open. Does not block. */
    CompletableFuture<?> opening() {
        return connection.get();
    }

    /** Completes when the current connection is open (or failed to open); never fails. Does not block. */
    CompletableFuture<Void> settled() {
        return connection.get().handle((c, f) -> null);
    }

    /** Sends {@code command} with the command timeout as its deadline. Does not block. */
    <T> CompletableFuture<T> send(Function<RedisClusterAsyncCommands<K, V>, ? extends CompletionStage<T>> command) {
        return dispatch(c -> command.apply(Connector.commands(c)), timeout);
    }

    /** Sends {@code command} with the command timeout as its deadline, to {@code node} as below. Does not block. */
    <T> CompletableFuture<T> send(RedisURI node,
                                  Function<RedisClusterAsyncCommands<K, V>, ? extends CompletionStage<T>> command) {
        return send(node, command, timeout);
    }

    /**
     * {@code WAIT replicas timeout} after a write of {@code key}, on this connection, which wrote it (on a cluster,
     * the connection to the master of the key's slot): answers how many replicas acknowledged every write sent
     * before it on that connection. The reply comes within {@code timeout} plus a round trip; the deadline is the
     * command timeout plus {@code timeout}. While it waits, the commands sent after it on this connection wait too:
     * so only on a dedicated connection ({@link ReplicatedWrite}). Does not block.
     */
    CompletableFuture<Long> replicate(String key, int replicas, Duration waitFor) {
        RedisURI owner;
        try {
            owner = connector.masterFor(key, address);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        return send(owner, c -> c.waitForReplication(replicas, waitFor.toMillis()), timeout.plus(waitFor));
    }

    /**
     * The node that serves {@code key}, as {@code host:port}: on a cluster the master of its slot in the current
     * topology (this connection's address when none is known), elsewhere this connection's address. For messages.
     */
    String addressFor(String key) {
        if (!connector.isCluster()) {
            return address;
        }
        try {
            RedisURI owner = connector.masterFor(key, address);
            return owner == null ? address : owner.getHost() + ":" + owner.getPort();
        } catch (CoordisException e) {
            return address;
        }
    }

    /**
     * Sends {@code command} with the deadline {@code deadline}: on a cluster to the master {@code node} itself
     * (not routed by key), elsewhere ({@code node} null) as {@link #send(Function)}. Does not block.
     */
    <T> CompletableFuture<T> send(RedisURI node,
                                  Function<RedisClusterAsyncCommands<K, V>, ? extends CompletionStage<T>> command,
                                  Duration deadline) {
        if (node == null) {
            return dispatch(c -> command.apply(Connector.commands(c)), deadline);
        }
        return dispatch(c -> ((StatefulRedisClusterConnection<K, V>) c)
                .getConnectionAsync(node.getHost(), node.getPort())
                .thenCompose(nc -> command.apply(nc.async())), deadline);
    }

    /** A command's future that remembers the connection it went out on. */
    private static final class Sent<T> extends CompletableFuture<T> {
        final CompletableFuture<?> via;
        /** Whether the connection was up when the command went out: a timeout while connecting is no reason to replace. */
        final boolean connectedAtSend;

        Sent(CompletableFuture<?> via) {
            this.via = via;
            this.connectedAtSend = via.isDone() && !via.isCompletedExceptionally();
        }
    }

    private <T> CompletableFuture<T> dispatch(Function<StatefulConnection<K, V>, ? extends CompletionStage<T>> command,
                                              Duration deadline) {
        if (closed) {
            // also while close() is under way: nothing new goes out once the connection is closing
            return CompletableFuture.failedFuture(closedFailure());
        }
        CompletableFuture<StatefulConnection<K, V>> via = current();
        Sent<T> result = new Sent<>(via);
        CompletableFuture<T> reply;
        try {
            // the usual case: the connection is open, so the command goes out now without a stage in between
            reply = result.connectedAtSend ? command.apply(via.getNow(null)).toCompletableFuture()
                    : via.thenCompose(command);
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        timer.failAfter(reply, Math.max(1, deadline.toNanos()));
        reply.whenComplete((v, f) -> {
            if (f == null) {
                result.complete(v);
            } else if (RedisErrors.unwrap(f) instanceof TimeoutException) {
                timedOut(result);
                result.completeExceptionally(timeoutFailure(deadline));
            } else {
                CoordisException e = RedisErrors.translate(f, address);
                if (e instanceof NodeUnavailableException || RedisErrors.isRedirect(f)) {
                    connector.topologyChanged();
                }
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /**
     * {@code sent} (a future of this connection) limited to {@code timeout} (up to a tick more): past it, the
     * result fails with a {@link NodeUnavailableException} naming the node, and the connection is treated as
     * after any timeout. Does not block.
     */
    <T> CompletableFuture<T> within(CompletableFuture<T> sent, Duration timeout) {
        CompletableFuture<T> limited = new CompletableFuture<>();
        sent.whenComplete((v, f) -> {
            if (f == null) {
                limited.complete(v);
            } else {
                limited.completeExceptionally(RedisErrors.unwrap(f));
            }
        });
        // a coarse deadline, cancelled when the reply comes first
        return timer.failAfter(limited, Math.max(1, timeout.toNanos())).handle((v, f) -> {
            if (f == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = RedisErrors.unwrap(f);
            if (cause instanceof TimeoutException) {
                timedOut(sent);
                cause = timeoutFailure(timeout);
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(x -> x);
    }

    /**
     * Treats {@code sent} (a future of this connection, still unanswered) as timed out: the topology is re-read
     * on a cluster, and the connection it went out on is replaced as after any timeout. Does not block.
     */
    void timedOut(CompletableFuture<?> sent) {
        connector.topologyChanged();
        if (sent instanceof Sent<?> s && s.connectedAtSend) {
            replaceAfterTimeout(s.via);
        }
    }

    /** The failure that reports no reply within {@code timeout}, naming the node. */
    CoordisException timeoutFailure(Duration timeout) {
        return RedisErrors.translate(new TimeoutException("no reply within " + timeout.toMillis() + " ms"), address);
    }

    /**
     * Waits for {@code future} at most {@code timeout}, turning a timeout or failure into a {@link CoordisException}
     * naming the node; a timeout counts as one of the command (see {@link #timedOut}).
     */
    <T> T await(CompletionStage<T> future, Duration timeout) throws InterruptedException {
        try {
            return future.toCompletableFuture().get(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
        } catch (ExecutionException e) {
            throw RedisErrors.translate(e.getCause(), address);
        } catch (TimeoutException e) {
            timedOut(future.toCompletableFuture());
            throw timeoutFailure(timeout);
        }
    }

    /**
     * Like {@link #await}, but keeps waiting through interrupts, restoring the interrupt flag afterwards; the
     * deadline is read on the client's timer, as every deadline is.
     */
    <T> T awaitUninterruptibly(CompletionStage<T> future, Duration timeout) {
        boolean interrupted = Thread.interrupted();
        long deadline = timer.now() + timeout.toNanos();
        try {
            while (true) {
                try {
                    return await(future, Duration.ofNanos(Math.max(1, deadline - timer.now())));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private CoordisException closedFailure() {
        return new ClosedByClientException(address);
    }

    private CompletableFuture<StatefulConnection<K, V>> current() {
        CompletableFuture<StatefulConnection<K, V>> c = connection.get();
        return c.isCompletedExceptionally() ? replace(c) : c;
    }

    /**
     * After a timeout: {@link #replace} the connection, except on a cluster, where one connection multiplexes
     * every node and closing it would fail commands in flight to healthy masters because one was slow; Lettuce
     * matches replies per node connection, and a late reply completes only its own, already failed, command.
     */
    private void replaceAfterTimeout(CompletableFuture<?> stale) {
        if (replacing) {
            replace(stale);
        }
    }

    /**
     * Replaces {@code stale} with a new connection (opened in the background) unless another caller did so
     * already or this one is closed, and closes {@code stale}.
     */
    private CompletableFuture<StatefulConnection<K, V>> replace(CompletableFuture<?> stale) {
        CompletableFuture<StatefulConnection<K, V>> current = connection.get();
        if (closed || current != stale) {
            return current;
        }
        CompletableFuture<StatefulConnection<K, V>> fresh = new CompletableFuture<>();
        if (!connection.compareAndSet(current, fresh)) {
            return connection.get();
        }
        log.debug("replacing the connection to {}", address);
        current.thenAccept(StatefulConnection::closeAsync);
        connect().whenComplete((c, f) -> {
            if (f == null) {
                fresh.complete(c);
            } else {
                fresh.completeExceptionally(f);
            }
        });
        return fresh;
    }

    /** Opens a connection in the background; one that opens after {@link #close()} is closed at once. */
    private CompletableFuture<StatefulConnection<K, V>> connect() {
        CompletableFuture<StatefulConnection<K, V>> f = new CompletableFuture<>();
        connect(f);
        return f;
    }

    private void connect(CompletableFuture<StatefulConnection<K, V>> f) {
        connector.connectAsync(codec).whenComplete((c, e) -> {
            if (e == null) {
                f.complete(c);
                if (closed) {
                    c.closeAsync();
                }
            } else {
                f.completeExceptionally(e);
            }
        });
    }

    /** Closes without waiting: later commands fail at once, and the connection closes when it has opened. */
    void drop() {
        closed = true;
        closing();
    }

    /** Closes the current connection once, however often it is asked: a second close makes Lettuce warn. */
    private CompletableFuture<Void> closing() {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        if (!closing.compareAndSet(null, mine)) {
            return closing.get();
        }
        connection.get().thenCompose(StatefulConnection::closeAsync).whenComplete((v, f) -> {
            if (f == null) {
                mine.complete(null);
            } else {
                mine.completeExceptionally(f);
            }
        });
        return mine;
    }

    /**
     * Closes, waiting at most 2 s. Never Lettuce's blocking close: a connection still opening completes on an I/O
     * thread, which must not wait for its own channel to close; and a stalled channel must not stall the caller.
     */
    @Override
    public void close() {
        closed = true;
        try {
            closing().get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("closing a connection to {} did not finish cleanly: {}", address, e.toString());
        }
    }
}
