package io.coordis.internal.redis;

import io.coordis.CoordisException;
import io.coordis.internal.ClosedByClientException;
import io.coordis.internal.Timer;
import io.lettuce.core.codec.RedisCodec;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A write that replicas must acknowledge, and its {@code WAIT}, on a {@link Connection#dedicated dedicated connection}
 * lent from the node's pool. {@code WAIT} counts the writes of the connection it runs on, so the write goes out on
 * that connection too; and while {@code WAIT} blocks, the connection carries nothing else, so the node's shared
 * connection never waits behind it. One caller at a time; {@link #close()} gives the connection back, to be kept for
 * the next write when every command on it was answered, dropped otherwise (a late reply must not meet the next user).
 *
 * @param <V> the values' type: {@code String} for scripts, {@code byte[]} for queue payloads
 */
public final class ReplicatedWrite<V> implements AutoCloseable {
    private final String address;
    private final Connector connector;
    /** The connection lent; {@code null} when the node was closed already (every command then fails). */
    private final Lent<?, V> lent;
    private final List<CompletableFuture<?>> sent = new ArrayList<>(); // guarded by this
    private boolean closed; // guarded by this

    private ReplicatedWrite(String address, Connector connector, Lent<?, V> lent) {
        this.address = address;
        this.connector = connector;
        this.lent = lent;
    }

    /** Runs {@code script} on this connection (see {@link ScriptRunner}). Does not block. */
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<V> args) {
        try {
            connector.requireOneSlot(keys, address);
        } catch (CoordisException e) {
            return CompletableFuture.failedFuture(e);
        }
        return send(l -> l.eval(script, keys, args));
    }

    /** {@code LPUSH key values...} on this connection, answering the list's new length. Does not block. */
    public CompletableFuture<Long> lpush(String key, List<V> values) {
        return send(l -> l.lpush(key, values));
    }

    /**
     * {@code WAIT replicas timeout} on this connection, after the writes sent on it: answers how many replicas
     * acknowledged all of them (see {@link Connection#replicate}). Does not block.
     */
    public CompletableFuture<Long> replicate(String key, int replicas, Duration waitFor) {
        return send(l -> l.connection().replicate(key, replicas, waitFor));
    }

    private synchronized <T> CompletableFuture<T> send(Function<Lent<?, V>, CompletableFuture<T>> command) {
        if (lent == null) {
            return CompletableFuture.failedFuture(new ClosedByClientException(address));
        }
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("this replicated write is over"));
        }
        CompletableFuture<T> c = command.apply(lent);
        sent.add(c);
        return c;
    }

    /**
     * Gives the connection back: kept for the next write if every command on it was answered, dropped otherwise.
     * Idempotent.
     */
    @Override
    public void close() {
        boolean answered;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            answered = sent.stream().allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        }
        if (lent != null) {
            lent.giveBack(answered);
        }
    }

    /** A dedicated connection with the commands a replicated write sends, typed by its codec. */
    private record Lent<K, V>(Pool<K, V> pool, Connection<K, V> connection) {
        CompletableFuture<Object> eval(LuaScript script, List<String> keyNames, List<V> args) {
            K[] k = pool.keys.apply(keyNames);
            V[] a = pool.values.apply(args);
            return connection.send(c -> ScriptRunner.run(c, script, k, a));
        }

        CompletableFuture<Long> lpush(String keyName, List<V> values) {
            V[] v = pool.values.apply(values);
            K k = pool.key.apply(keyName);
            return connection.send(c -> c.lpush(k, v));
        }

        void giveBack(boolean answered) {
            pool.giveBack(connection, answered);
        }
    }

    /**
     * The dedicated connections of one node and codec for replicated writes: up to {@value #IDLE} kept idle between
     * writes, more opened while that many are lent at once, each closed with the node. Thread-safe.
     */
    static final class Pool<K, V> implements AutoCloseable {
        /** Connections kept open between writes; a burst of concurrent writes opens more, closed after use. */
        static final int IDLE = 4;

        private final String address;
        private final Connector connector;
        private final RedisCodec<K, V> codec;
        private final Timer timer;
        private final Duration timeout;
        private final Function<String, K> key;
        private final Function<List<String>, K[]> keys;
        private final Function<List<V>, V[]> values;
        private final Deque<Connection<K, V>> idle = new ArrayDeque<>(); // guarded by this
        private boolean closed; // guarded by this

        /**
         * A pool for {@code codec}; {@code key} makes a key of a name, {@code keys} an array of keys of a list of
         * names, {@code values} an array of a list of values.
         */
        Pool(String address, Connector connector, RedisCodec<K, V> codec, Timer timer, Duration timeout,
             Function<String, K> key, Function<List<String>, K[]> keys, Function<List<V>, V[]> values) {
            this.address = address;
            this.connector = connector;
            this.codec = codec;
            this.timer = timer;
            this.timeout = timeout;
            this.key = key;
            this.keys = keys;
            this.values = values;
        }

        /**
         * A connection of its own for one replicated write: an idle one, or a new one opening now; once the pool is
         * closed, none (its commands fail naming the closed connection).
         */
        ReplicatedWrite<V> lend() {
            Connection<K, V> c;
            synchronized (this) {
                if (closed) {
                    return new ReplicatedWrite<>(address, connector, null);
                }
                c = idle.pollFirst();
            }
            if (c == null) {
                c = Connection.dedicated(address, connector, codec, timer, timeout);
            }
            return new ReplicatedWrite<>(address, connector, new Lent<>(this, c));
        }

        private void giveBack(Connection<K, V> c, boolean answered) {
            synchronized (this) {
                if (answered && !closed && idle.size() < IDLE) {
                    idle.addFirst(c);
                    return;
                }
            }
            c.drop();
        }

        /** Closes the idle connections, waiting at most 2 s for each; those lent close when given back. */
        @Override
        public void close() {
            List<Connection<K, V>> open;
            synchronized (this) {
                closed = true;
                open = new ArrayList<>(idle);
                idle.clear();
            }
            open.forEach(Connection::close);
        }
    }
}
