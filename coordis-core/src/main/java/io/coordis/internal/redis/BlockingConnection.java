package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.coordis.internal.ClosedByClientException;
import io.coordis.internal.Timer;
import io.lettuce.core.KeyValue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.coordis.internal.redis.ListCommands.bytes;

/**
 * A connection of its own for blocking pops. One call at a time; {@link #abandonAsync()} may come from
 * another thread while it waits. After a call that timed out, failed
 * or was interrupted, the connection is closed and the server is told to drop it ({@code CLIENT KILL}),
 * so that it cannot move a message after the caller stopped listening; the next call opens a new one.
 */
public final class BlockingConnection implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BlockingConnection.class);
    private final String address;
    private final Connector connector;
    private final Timer timer;
    private final Duration commandTimeout;
    private final AdminCommands admin;
    /** Whether the client closed the node's commands: then nothing opens or is killed any more. */
    private final BooleanSupplier closed;
    private volatile Connection<byte[], byte[]> conn;
    /** On a cluster, the master that {@link #conn} talks to; {@code null} elsewhere. */
    private RedisURI node;
    private volatile long clientId = -1;
    private volatile boolean retired;

    /** For {@link ListCommands#blocking()}: opens nothing yet. */
    BlockingConnection(String address, Connector connector, Timer timer, Duration commandTimeout, AdminCommands admin,
                       BooleanSupplier closed) {
        this.address = address;
        this.connector = connector;
        this.timer = timer;
        this.commandTimeout = commandTimeout;
        this.admin = admin;
        this.closed = closed;
    }

    /**
     * {@code BLMOVE source destination RIGHT|LEFT LEFT block}: the moved message, or {@code null} when
     * none came within {@code block}. On any failure or interrupt, see {@link #abandon()}: the
     * message may or may not have been moved; the caller must look at {@code destination}.
     */
    public byte[] move(String source, String destination, boolean fromRight, Duration block)
            throws InterruptedException {
        return call(moveCommand(source, destination, fromRight, block), source, block);
    }

    /**
     * {@link #move} without a thread waiting: completes (on an I/O thread) with the moved message or
     * {@code null}; on a failure, once this connection is abandoned (see {@link #abandonAsync()}), with the
     * failure translated. {@link #abandonAsync()} while it waits ends it: it then fails. Either way the message
     * may or may not have been moved; the caller must look at {@code destination}.
     */
    public CompletableFuture<byte[]> moveAsync(String source, String destination, boolean fromRight,
                                               Duration block) {
        CompletableFuture<byte[]> sent;
        try {
            sent = send(source, moveCommand(source, destination, fromRight, block), block);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        return sent.handle((moved, failure) -> failure == null ? CompletableFuture.completedFuture(moved)
                : abandonAsync().<byte[]>thenCompose(confirmed -> CompletableFuture.failedFuture(
                        RedisErrors.translate(failure, address)))).thenCompose(f -> f);
    }

    private Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<byte[]>> moveCommand(
            String source, String destination, boolean fromRight, Duration block) {
        LMoveArgs args = fromRight ? LMoveArgs.Builder.rightLeft() : LMoveArgs.Builder.leftLeft();
        double seconds = Math.max(0.001, block.toMillis() / 1000.0);
        connector.requireOneSlot(List.of(source, destination), address);
        return c -> c.blmove(bytes(source), bytes(destination), args, seconds);
    }

    /**
     * Runs {@code script} on this connection (see {@link ScriptRunner}) and waits for the reply, at most the
     * command timeout: for a caller that owns this connection between blocking calls and wants its
     * commands off the shared connection. Failures as {@link #move}.
     */
    public Object eval(LuaScript script, List<String> keys, List<byte[]> args) throws InterruptedException {
        connector.requireOneSlot(keys, address);
        byte[][] k = keys.stream().map(ListCommands::bytes).toArray(byte[][]::new);
        byte[][] a = args.toArray(byte[][]::new);
        return call(c -> ScriptRunner.run(c, script, k, a), keys.get(0), Duration.ZERO);
    }

    /** {@code BRPOP key block} (or {@code BLPOP}): the value, or {@code null} after {@code block}. */
    public byte[] pop(String key, boolean right, Duration block) throws InterruptedException {
        double seconds = Math.max(0.001, block.toMillis() / 1000.0);
        KeyValue<byte[], byte[]> kv = call(c -> right ? c.brpop(seconds, bytes(key)) : c.blpop(seconds, bytes(key)),
                key, block);
        return kv == null || !kv.hasValue() ? null : kv.getValue();
    }

    /** {@link #send}, waited for; a failure or interrupt abandons the connection first. */
    private <T> T call(Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> command, String key,
                       Duration block) throws InterruptedException {
        CompletableFuture<T> result = send(key, command, block);
        try {
            return result.get();
        } catch (InterruptedException e) {
            abandon();
            throw e;
        } catch (ExecutionException e) {
            abandon();
            throw RedisErrors.translate(e.getCause(), address);
        }
    }

    /**
     * Sends {@code command} on this connection, learning its server-side id first, with a deadline of
     * {@code block} plus the command timeout. Does not block.
     */
    private synchronized <T> CompletableFuture<T> send(
            String key, Function<RedisClusterAsyncCommands<byte[], byte[]>, CompletionStage<T>> command,
            Duration block) {
        if (closed.getAsBoolean()) {
            throw new ClosedByClientException(address);
        }
        if (retired) {
            throw new CoordisException(address, "the connection to Redis at " + address + " is closed", null);
        }
        RedisURI owner = connector.masterFor(key, address);
        if (conn != null && !Objects.equals(owner, node)) {
            abandonAsync(); // the slot moved (failover): talk to its new master
        }
        if (conn == null) {
            conn = Connection.dedicated(address, connector, ByteArrayCodec.INSTANCE, timer, commandTimeout);
            node = owner;
            clientId = -1;
        }
        Connection<byte[], byte[]> on = conn;
        return on.send(node, c -> {
            CompletionStage<Long> id = clientId < 0 ? c.clientId() : CompletableFuture.completedFuture(clientId);
            return id.thenCompose(n -> {
                if (conn == on) {
                    clientId = n;
                }
                return command.apply(c);
            });
        }, block.plus(commandTimeout));
    }

    /**
     * Drops this connection: closes it and, when its server-side id is known, kills it on the server
     * through the node's command connection, waiting at most the command timeout. Answers whether the server
     * confirmed, i.e. whether a blocked command of this connection can no longer move anything.
     */
    public boolean abandon() {
        try {
            return abandonAsync().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException e) {
            return false;
        }
    }

    /**
     * {@link #abandon()} without waiting: completes with whether the server confirmed, once it answered (or
     * at once when there is nothing to kill). A command blocked on this connection fails meanwhile.
     */
    public CompletableFuture<Boolean> abandonAsync() {
        Connection<byte[], byte[]> old;
        long id;
        RedisURI on;
        synchronized (this) {
            old = conn;
            id = clientId;
            on = node;
            conn = null;
            node = null;
            clientId = -1;
        }
        if (old == null) {
            return CompletableFuture.completedFuture(true);
        }
        if (id < 0 || closed.getAsBoolean()) {
            old.drop();
            return CompletableFuture.completedFuture(false);
        }
        return admin.killClient(id, on).handle((n, failure) -> {
            if (failure != null) {
                log.debug("could not end a blocking connection to {} on the server: {}", address, failure.toString());
            }
            old.drop();
            return failure == null;
        });
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
