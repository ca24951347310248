package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.KeyValue;
import io.lettuce.core.KillArgs;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * Binary-safe list, hash and script commands on one node, for queues: keys are strings, values are
 * {@code byte[]} passed through unchanged (a payload need not be UTF-8). Commands share one multiplexed
 * connection; blocking pops run on {@link Blocking} connections of their own, one per concurrent blocking
 * call, because {@code BLMOVE}/{@code BRPOP} hold their connection until they return.
 *
 * <p>Timeouts are enforced here, not by Lettuce: a normal command fails after the node's command timeout
 * and its connection is replaced (a late reply could otherwise answer a later command); a blocking command
 * may take its block time plus the command timeout. Thread-safe. Results leave as {@code byte[]},
 * {@code Long}, {@code List<Object>} or {@code null}; failures as {@link CoordisException} naming the node.
 *
 * <p>On a Redis Cluster commands are routed by their first key, and a blocking connection talks directly to
 * the master that owns its key's slot (looked up on each call, so it follows a failover), so that
 * {@code CLIENT KILL} reaches the same server.
 */
public final class ListCommands implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ListCommands.class);
    private final String address;
    private final Duration commandTimeout;
    private final Connector connector;
    private final AtomicReference<CompletableFuture<StatefulConnection<byte[], byte[]>>> connection;
    private volatile boolean closed;

    ListCommands(String address, Duration commandTimeout, Connector template) {
        this.address = address;
        this.commandTimeout = commandTimeout;
        // Our own timeouts (see the class comment): Lettuce's fixed one would end every BLMOVE early.
        this.connector = template.withoutCommandTimeouts();
        this.connection = new AtomicReference<>(connect());
    }

    public String address() {
        return address;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** Runs {@code script} (EVALSHA, falling back to EVAL on NOSCRIPT) with binary arguments. */
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<byte[]> args) {
        try {
            connector.requireOneSlot(keys, address);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        byte[][] k = keys.stream().map(ListCommands::bytes).toArray(byte[][]::new);
        byte[][] a = args.toArray(byte[][]::new);
        return send(c -> c.<Object>evalsha(script.sha(), ScriptOutputType.MULTI, k, a)
                .handle((value, failure) -> failure != null && RedisErrors.isNoScript(failure)
                        ? c.<Object>eval(script.source(), ScriptOutputType.MULTI, k, a)
                        : (failure != null ? CompletableFuture.failedFuture(failure) : CompletableFuture.completedFuture(value)))
                .thenCompose(stage -> stage));
    }

    /** {@code LPUSH key values...}, answering the list's new length. */
    public CompletableFuture<Long> lpush(String key, List<byte[]> values) {
        byte[][] v = values.toArray(byte[][]::new);
        return send(c -> c.lpush(bytes(key), v));
    }

    /** {@code RPOP key count} (or {@code LPOP} when {@code right} is false); an empty list when none. */
    public CompletableFuture<List<byte[]>> pop(String key, boolean right, long count) {
        return send(c -> right ? c.rpop(bytes(key), count) : c.lpop(bytes(key), count))
                .thenApply(l -> l == null ? List.of() : l);
    }

    /** {@code LMOVE source destination RIGHT|LEFT LEFT}: one message moved, or {@code null}. */
    public CompletableFuture<byte[]> move(String source, String destination, boolean fromRight) {
        LMoveArgs args = fromRight ? LMoveArgs.Builder.rightLeft() : LMoveArgs.Builder.leftLeft();
        try {
            connector.requireOneSlot(List.of(source, destination), address);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        return send(c -> c.lmove(bytes(source), bytes(destination), args));
    }

    /** {@code LREM key count value}, answering how many were removed. */
    public CompletableFuture<Long> lrem(String key, long count, byte[] value) {
        return send(c -> c.lrem(bytes(key), count, value));
    }

    public CompletableFuture<Long> llen(String key) {
        return send(c -> c.llen(bytes(key)));
    }

    public CompletableFuture<byte[]> lindex(String key, long index) {
        return send(c -> c.lindex(bytes(key), index));
    }

    public CompletableFuture<List<byte[]>> lrange(String key, long start, long stop) {
        return send(c -> c.lrange(bytes(key), start, stop));
    }

    public CompletableFuture<Map<byte[], byte[]>> hgetall(String key) {
        return send(c -> c.hgetall(bytes(key)));
    }

    public CompletableFuture<byte[]> hget(String key, String field) {
        return send(c -> c.hget(bytes(key), bytes(field)));
    }

    /**
     * The integer in field {@code field} of hash {@code key}, 0 when absent; a failure completes the future
     * with the translated {@link io.coordis.CoordisException}.
     */
    public CompletableFuture<Long> hgetNumber(String key, String field) {
        return hget(key, field).handle((value, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                throw RedisErrors.translate(cause, address);
            }
            return value == null ? 0L : Long.parseLong(text(value));
        });
    }

    public CompletableFuture<Long> zcard(String key) {
        return send(c -> c.zcard(bytes(key)));
    }

    public CompletableFuture<Long> exists(String key) {
        return send(c -> c.exists(bytes(key)));
    }

    public CompletableFuture<String> type(String key) {
        return send(c -> c.type(bytes(key)));
    }

    /**
     * The server's clock ({@code TIME}) in milliseconds since the epoch: on a cluster, the clock of the master
     * that serves {@code key} (whose scripts wrote the times it is compared with); elsewhere the node's.
     */
    public CompletableFuture<Long> timeMillis(String key) {
        RedisURI owner;
        try {
            owner = connector.masterFor(key, address);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<List<byte[]>> time = owner == null ? send(RedisClusterAsyncCommands::time)
                : onNode(owner, RedisClusterAsyncCommands::time);
        return time.thenApply(t -> Long.parseLong(text(t.get(0))) * 1000 + Long.parseLong(text(t.get(1))) / 1000);
    }

    /** On a cluster: one command on the node {@code node} itself (not routed by key), within the command timeout. */
    private <T> CompletableFuture<T> onNode(RedisURI node,
                                            Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> command) {
        if (closed) {
            return CompletableFuture.failedFuture(
                    new CoordisException(address, "the connection to Redis at " + address + " is closed", null));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        connection.get()
                .thenCompose(c -> ((StatefulRedisClusterConnection<byte[], byte[]>) c).getConnectionAsync(node.getHost(), node.getPort()))
                .thenCompose(nc -> command.apply(nc.async()))
                .whenComplete((v, f) -> {
                    if (f == null) {
                        result.complete(v);
                    } else {
                        CoordisException e = RedisErrors.translate(f, address);
                        if (e instanceof io.coordis.NodeUnavailableException) {
                            connector.topologyChanged();
                        }
                        result.completeExceptionally(e);
                    }
                });
        return io.coordis.internal.Wheel.failAfter(result, commandTimeout.toNanos()).exceptionallyCompose(f -> {
            Throwable cause = RedisErrors.unwrap(f);
            if (cause instanceof TimeoutException) {
                connector.topologyChanged();
                cause = RedisErrors.translate(new TimeoutException("no reply within " + commandTimeout.toMillis() + " ms"), address);
            }
            return CompletableFuture.failedFuture(cause);
        });
    }

    /**
     * {@code CLIENT KILL ID id}: ends another connection of ours on the server at once; on a cluster on the
     * node {@code node} (the one the connection was opened to; ignored elsewhere).
     */
    public CompletableFuture<Long> killClient(long id, RedisURI node) {
        if (node == null) {
            return send(c -> c.clientKill(KillArgs.Builder.id(id)));
        }
        return onNode(node, c -> c.clientKill(KillArgs.Builder.id(id)));
    }

    /** A new dedicated connection for blocking commands; opened on first use, closed by its owner. */
    public Blocking blocking() {
        return new Blocking();
    }

    /** Waits for {@code future} (whose timeout this class enforces), translating failures. */
    public <T> T await(CompletionStage<T> future) throws InterruptedException {
        try {
            return future.toCompletableFuture().get();
        } catch (ExecutionException e) {
            throw RedisErrors.translate(e.getCause(), address);
        }
    }

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    /**
     * A connection of its own for blocking pops. One call at a time. After a call that timed out, failed
     * or was interrupted, the connection is closed and the server is told to drop it ({@code CLIENT KILL}),
     * so that it cannot move a message after the caller stopped listening; the next call opens a new one.
     */
    public final class Blocking implements AutoCloseable {
        /** The connection this call opened: to the node, or to the cluster (whose node connection is {@link #target}). */
        private CompletableFuture<StatefulConnection<byte[], byte[]>> conn;
        private CompletableFuture<StatefulRedisConnection<byte[], byte[]>> target;
        /** On a cluster, the master that {@link #target} talks to; {@code null} elsewhere. */
        private RedisURI node;
        private volatile long clientId = -1;
        private volatile boolean retired;

        private Blocking() {
        }

        /**
         * {@code BLMOVE source destination RIGHT|LEFT LEFT block}: the moved message, or {@code null} when
         * none came within {@code block}. On any failure or interrupt, see {@link #abandon()}: the
         * message may or may not have been moved; the caller must look at {@code destination}.
         */
        public byte[] move(String source, String destination, boolean fromRight, Duration block)
                throws InterruptedException {
            LMoveArgs args = fromRight ? LMoveArgs.Builder.rightLeft() : LMoveArgs.Builder.leftLeft();
            double seconds = Math.max(0.001, block.toMillis() / 1000.0);
            connector.requireOneSlot(List.of(source, destination), address);
            return call(source, c -> c.blmove(bytes(source), bytes(destination), args, seconds), block);
        }

        /**
         * Runs {@code script} on this connection (EVALSHA, EVAL on NOSCRIPT) and waits for the reply, at most
         * the command timeout: for a caller that owns this connection between blocking calls and wants its
         * commands off the shared connection. Failures as {@link #move}.
         */
        public Object eval(LuaScript script, List<String> keys, List<byte[]> args) throws InterruptedException {
            connector.requireOneSlot(keys, address);
            byte[][] k = keys.stream().map(ListCommands::bytes).toArray(byte[][]::new);
            byte[][] a = args.toArray(byte[][]::new);
            return call(keys.get(0), c -> c.<Object>evalsha(script.sha(), ScriptOutputType.MULTI, k, a)
                    .handle((value, failure) -> failure != null && RedisErrors.isNoScript(failure)
                            ? c.<Object>eval(script.source(), ScriptOutputType.MULTI, k, a)
                            : (failure != null ? CompletableFuture.failedFuture(failure) : CompletableFuture.completedFuture(value)))
                    .thenCompose(stage -> stage), Duration.ZERO);
        }

        /** {@code BRPOP key block} (or {@code BLPOP}): the value, or {@code null} after {@code block}. */
        public byte[] pop(String key, boolean right, Duration block) throws InterruptedException {
            double seconds = Math.max(0.001, block.toMillis() / 1000.0);
            KeyValue<byte[], byte[]> kv = call(key, c -> right ? c.brpop(seconds, bytes(key)) : c.blpop(seconds, bytes(key)),
                    block);
            return kv == null || !kv.hasValue() ? null : kv.getValue();
        }

        private <T> T call(String key, Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> command,
                           Duration block) throws InterruptedException {
            if (closed || retired) {
                throw new CoordisException(address, "the connection to Redis at " + address + " is closed", null);
            }
            RedisURI owner = connector.masterFor(key, address);
            if (conn != null && !java.util.Objects.equals(owner, node)) {
                abandon(); // the slot moved (failover): talk to its new master
            }
            if (conn == null || target.isCompletedExceptionally()) {
                if (conn != null) {
                    conn.thenAccept(StatefulConnection::closeAsync);
                }
                conn = connect();
                node = owner;
                target = owner == null
                        ? conn.thenApply(c -> (StatefulRedisConnection<byte[], byte[]>) c)
                        : conn.thenCompose(c -> ((StatefulRedisClusterConnection<byte[], byte[]>) c)
                                .getConnectionAsync(owner.getHost(), owner.getPort()));
                clientId = -1;
            }
            CompletableFuture<StatefulRedisConnection<byte[], byte[]>> via = target;
            Duration limit = block.plus(commandTimeout);
            CompletableFuture<T> result = via.thenCompose(c -> {
                CompletionStage<Long> id = clientId < 0 ? c.async().clientId() : CompletableFuture.completedFuture(clientId);
                return id.thenCompose(n -> {
                    clientId = n;
                    return command.apply(c.async());
                });
            }).toCompletableFuture();
            try {
                return result.get(limit.toNanos() + TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                abandon();
                throw e;
            } catch (ExecutionException e) {
                abandon();
                CoordisException failure = RedisErrors.translate(e.getCause(), address);
                if (failure instanceof io.coordis.NodeUnavailableException || RedisErrors.isRedirect(e.getCause())) {
                    connector.topologyChanged();
                }
                throw failure;
            } catch (TimeoutException e) {
                connector.topologyChanged();
                abandon();
                throw RedisErrors.translate(new TimeoutException("no reply to a blocking pop within "
                        + limit.toMillis() + " ms"), address);
            }
        }

        /**
         * Drops this connection: closes it and, when its server-side id is known, kills it on the server
         * through the shared connection, waiting at most the command timeout. Answers whether the server
         * confirmed, i.e. whether a blocked command of this connection can no longer move anything.
         */
        public boolean abandon() {
            CompletableFuture<StatefulConnection<byte[], byte[]>> old = conn;
            long id = clientId;
            RedisURI on = node;
            conn = null;
            target = null;
            node = null;
            clientId = -1;
            if (old == null) {
                return true;
            }
            boolean confirmed = false;
            if (id >= 0 && !closed) {
                try {
                    killClient(id, on).get(commandTimeout.toNanos(), TimeUnit.NANOSECONDS);
                    confirmed = true;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (ExecutionException | TimeoutException e) {
                    log.debug("could not end a blocking connection to {} on the server: {}", address, e.toString());
                }
            }
            old.thenAccept(StatefulConnection::closeAsync);
            return confirmed;
        }

        /**
         * Closes for good: later calls fail instead of opening a new connection. Answers like
         * {@link #abandon()} whether the server confirmed the old connection is gone.
         */
        public boolean retire() {
            retired = true;
            return abandon();
        }

        @Override
        public void close() {
            retire();
        }
    }

    private CompletableFuture<StatefulConnection<byte[], byte[]>> connect() {
        CompletableFuture<StatefulConnection<byte[], byte[]>> f = new CompletableFuture<>();
        try {
            connector.connectAsync(ByteArrayCodec.INSTANCE).whenComplete((c, e) -> {
                if (e == null) {
                    f.complete(c);
                    if (closed) {
                        c.closeAsync();
                    }
                } else {
                    f.completeExceptionally(e);
                }
            });
        } catch (RuntimeException e) {
            f.completeExceptionally(e);
        }
        return f;
    }

    private <T> CompletableFuture<T> send(Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> command) {
        CompletableFuture<StatefulConnection<byte[], byte[]>> via = connection.get();
        if (via.isCompletedExceptionally()) {
            via = replace(via);
        }
        boolean connectedAtSend = via.isDone() && !via.isCompletedExceptionally();
        CompletableFuture<StatefulConnection<byte[], byte[]>> sentOn = via;
        CompletableFuture<T> result = new CompletableFuture<>();
        via.thenCompose(c -> command.apply(Connector.commands(c))).whenComplete((v, f) -> {
            if (f == null) {
                result.complete(v);
            } else {
                CoordisException e = RedisErrors.translate(f, address);
                if (e instanceof io.coordis.NodeUnavailableException || RedisErrors.isRedirect(f)) {
                    connector.topologyChanged();
                }
                if (connectedAtSend && RedisErrors.unwrap(f) instanceof io.lettuce.core.RedisCommandTimeoutException) {
                    // Lettuce's own deadline came first: its late reply would answer the next command, as below
                    replaceAfterTimeout(sentOn);
                }
                result.completeExceptionally(e);
            }
        });
        return io.coordis.internal.Wheel.failAfter(result, commandTimeout.toNanos()).handle((v, f) -> {
            if (f == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = RedisErrors.unwrap(f);
            if (cause instanceof TimeoutException) {
                connector.topologyChanged();
                if (connectedAtSend) {
                    replaceAfterTimeout(sentOn);
                }
                cause = RedisErrors.translate(new TimeoutException("no reply within " + commandTimeout.toMillis()
                        + " ms"), address);
            }
            return CompletableFuture.<T>failedFuture(cause);
        }).thenCompose(x -> x);
    }

    /**
     * After a timeout: {@link #replace} the connection, except on a cluster, where one connection multiplexes
     * every node and closing it would fail commands in flight to healthy masters because one was slow; Lettuce
     * matches replies per node connection, and a late reply completes only its own, already failed, command.
     */
    private void replaceAfterTimeout(CompletableFuture<StatefulConnection<byte[], byte[]>> stale) {
        if (!connector.isCluster()) {
            replace(stale);
        }
    }

    private CompletableFuture<StatefulConnection<byte[], byte[]>> replace(
            CompletableFuture<StatefulConnection<byte[], byte[]>> stale) {
        CompletableFuture<StatefulConnection<byte[], byte[]>> fresh = new CompletableFuture<>();
        if (closed || !connection.compareAndSet(stale, fresh)) {
            return connection.get();
        }
        stale.thenAccept(StatefulConnection::closeAsync);
        connect().whenComplete((c, f) -> {
            if (f == null) {
                fresh.complete(c);
            } else {
                fresh.completeExceptionally(f);
            }
        });
        return fresh;
    }

    @Override
    public void close() {
        closed = true;
        try {
            connection.get().thenCompose(StatefulConnection::closeAsync).get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.debug("closing the list connection to {} did not finish cleanly: {}", address, e.toString());
        }
        connector.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
