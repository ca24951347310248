package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.coordis.internal.Timer;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;

/**
 * Binary-safe list, hash and script commands on one node, for queues: keys are strings, values are
 * {@code byte[]} passed through unchanged (a payload need not be UTF-8). Commands share one {@link Connection}
 * of their own; blocking pops run on {@link BlockingConnection}s of their own, one per concurrent blocking
 * call, because {@code BLMOVE}/{@code BRPOP} hold their connection until they return.
 *
 * <p>A normal command fails after the node's command timeout; a blocking command may take its block time plus
 * the command timeout. Thread-safe. Results leave as {@code byte[]}, {@code Long}, {@code List<Object>} or
 * {@code null}; failures as {@link CoordisException} naming the node.
 *
 * <p>On a Redis Cluster commands are routed by their first key, and a blocking connection talks directly to
 * the master that owns its key's slot (looked up on each call, so it follows a failover), so that
 * {@code CLIENT KILL} reaches the same server.
 */
public final class ListCommands implements AutoCloseable {
    private final String address;
    private final Duration commandTimeout;
    private final Connector connector;
    private final Timer timer;
    private final AdminCommands admin;
    private final Connection<byte[], byte[]> connection;
    private final ReplicatedWrite.Pool<byte[], byte[]> replicatedWrites;
    private volatile boolean closed;

    ListCommands(String address, Connector connector, Timer timer, Duration commandTimeout, AdminCommands admin) {
        this.address = address;
        this.commandTimeout = commandTimeout;
        this.connector = connector;
        this.timer = timer;
        this.admin = admin;
        this.connection = Connection.shared(address, connector, ByteArrayCodec.INSTANCE, timer, commandTimeout);
        this.replicatedWrites = new ReplicatedWrite.Pool<>(address, connector, ByteArrayCodec.INSTANCE, timer,
                commandTimeout, ListCommands::bytes, k -> k.stream().map(ListCommands::bytes).toArray(byte[][]::new),
                v -> v.toArray(byte[][]::new));
    }

    public String address() {
        return address;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** Runs {@code script} (see {@link ScriptRunner}) with binary arguments. */
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<byte[]> args) {
        try {
            connector.requireOneSlot(keys, address);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        byte[][] k = keys.stream().map(ListCommands::bytes).toArray(byte[][]::new);
        byte[][] a = args.toArray(byte[][]::new);
        return connection.send(c -> ScriptRunner.run(c, script, k, a));
    }

    /** {@code LPUSH key values...}, answering the list's new length. */
    public CompletableFuture<Long> lpush(String key, List<byte[]> values) {
        byte[][] v = values.toArray(byte[][]::new);
        return connection.send(c -> c.lpush(bytes(key), v));
    }

    /** {@link RedisNode#replicatedWrite} for binary commands: a push and its {@code WAIT}. */
    public ReplicatedWrite<byte[]> replicatedWrite() {
        return replicatedWrites.lend();
    }

    /**
     * The node that serves {@code key}, as {@code host:port}: on a cluster the master of its slot in the current
     * topology (this node's address when none is known), elsewhere this node's address. For messages.
     */
    public String addressFor(String key) {
        return connection.addressFor(key);
    }

    /** {@code RPOP key count} (or {@code LPOP} when {@code right} is false); an empty list when none. */
    public CompletableFuture<List<byte[]>> pop(String key, boolean right, long count) {
        return connection.<List<byte[]>>send(c -> right ? c.rpop(bytes(key), count) : c.lpop(bytes(key), count))
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
        return connection.send(c -> c.lmove(bytes(source), bytes(destination), args));
    }

    /** {@code LREM key count value}, answering how many were removed. */
    public CompletableFuture<Long> lrem(String key, long count, byte[] value) {
        return connection.send(c -> c.lrem(bytes(key), count, value));
    }

    public CompletableFuture<byte[]> get(String key) {
        return connection.send(c -> c.get(bytes(key)));
    }

    public CompletableFuture<Long> llen(String key) {
        return connection.send(c -> c.llen(bytes(key)));
    }

    public CompletableFuture<byte[]> lindex(String key, long index) {
        return connection.send(c -> c.lindex(bytes(key), index));
    }

    public CompletableFuture<Map<byte[], byte[]>> hgetall(String key) {
        return connection.send(c -> c.hgetall(bytes(key)));
    }

    public CompletableFuture<byte[]> hget(String key, String field) {
        return connection.send(c -> c.hget(bytes(key), bytes(field)));
    }

    /**
     * The integer in field {@code field} of hash {@code key}, 0 when absent; a failure completes the future
     * with the translated {@link io.coordis.CoordisException}.
     */
    public CompletableFuture<Long> hgetNumber(String key, String field) {
        return hget(key, field).handle((value, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                throw RedisErrors.translate(cause, address);
            }
            return value == null ? 0L : Long.parseLong(text(value));
        });
    }

    public CompletableFuture<Long> zcard(String key) {
        return connection.send(c -> c.zcard(bytes(key)));
    }

    public CompletableFuture<Long> exists(String key) {
        return connection.send(c -> c.exists(bytes(key)));
    }

    public CompletableFuture<String> type(String key) {
        return connection.send(c -> c.type(bytes(key)));
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
        return connection.send(owner, RedisClusterAsyncCommands::time)
                .thenApply(t -> Long.parseLong(text(t.get(0))) * 1000 + Long.parseLong(text(t.get(1))) / 1000);
    }

    /** Translates any failure into the Coordis exception family, naming this node. */
    public CoordisException translate(Throwable failure) {
        return RedisErrors.translate(failure, address);
    }

    /** A new dedicated connection for blocking commands; opened on first use, closed by its owner. */
    public BlockingConnection blocking() {
        return new BlockingConnection(address, connector, timer, commandTimeout, admin, () -> closed);
    }

    /** Waits for {@code future} (whose timeout the connection enforces), translating failures. */
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
     * Closes the shared connection and the idle ones of replicated writes, waiting at most 2 s each; blocking
     * connections close with their owners.
     */
    @Override
    public void close() {
        closed = true;
        connection.close();
        replicatedWrites.close();
    }
}
