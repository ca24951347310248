package io.coordis.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The minimal correct lock in raw Lettuce commands, the floor the other clients are held to: acquire is
 * {@code SET key token NX PX 30000} (token: 20 random bytes, hex), release is the compare-and-delete
 * script by {@code EVALSHA}. No renewal, no fencing, no waiting queue. One connection per server, shared
 * by all threads (Lettuce multiplexes). Over several masters it is Redlock without retries or validity
 * bookkeeping: {@code SEQUENTIAL} asks one master after another, {@code PARALLEL} sends to all at once and
 * waits for every answer; it holds with a majority and releases on every master. {@link #lock} retries
 * immediately while busy (a spin, which is what a client without pub/sub wake-up does).
 */
public final class LettuceLocking implements Locking {
    /** How several masters are asked. */
    public enum Fanout { SEQUENTIAL, PARALLEL }

    public static final String DELETE_IF_OURS =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
    private static final long TTL_MILLIS = 30_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final RedisClient client = RedisClient.create();
    private final List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
    private final List<RedisCommands<String, String>> sync = new ArrayList<>();
    private final List<RedisAsyncCommands<String, String>> async = new ArrayList<>();
    private final Fanout fanout;
    private final int quorum;
    private final String sha;

    /** A held lock: the key and our token in it (also the handle of {@link LettuceScriptLocking}). */
    record Held(String key, String token) {
    }

    public LettuceLocking(List<String> uris, Fanout fanout) {
        this.fanout = fanout;
        String loaded = null;
        for (String uri : uris) {
            StatefulRedisConnection<String, String> c = client.connect(RedisURI.create(uri));
            connections.add(c);
            sync.add(c.sync());
            async.add(c.async());
            loaded = c.sync().scriptLoad(DELETE_IF_OURS);
        }
        this.sha = loaded;
        this.quorum = uris.size() / 2 + 1;
    }

    /** A lock value: 20 random bytes in hex, as long as a Coordis token. */
    public static String token() {
        byte[] b = new byte[20];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    @Override
    public Object tryLock(String key) {
        String token = token();
        SetArgs args = SetArgs.Builder.nx().px(TTL_MILLIS);
        int granted = 0;
        if (sync.size() == 1) {
            granted = "OK".equals(sync.get(0).set(key, token, args)) ? 1 : 0;
        } else if (fanout == Fanout.SEQUENTIAL) {
            for (RedisCommands<String, String> node : sync) {
                if ("OK".equals(node.set(key, token, args))) {
                    granted++;
                }
            }
        } else {
            List<RedisFuture<String>> replies = new ArrayList<>(async.size());
            for (RedisAsyncCommands<String, String> node : async) {
                replies.add(node.set(key, token, args));
            }
            for (RedisFuture<String> f : replies) {
                if ("OK".equals(f.toCompletableFuture().join())) {
                    granted++;
                }
            }
        }
        Held held = new Held(key, token);
        if (granted >= quorum) {
            return held;
        }
        if (granted > 0) {
            unlock(held);
        }
        return null;
    }

    @Override
    public Object lock(String key) throws InterruptedException {
        return Locking.spin(this, key);
    }

    @Override
    public void unlock(Object handle) {
        Held held = (Held) handle;
        String[] keys = {held.key()};
        if (sync.size() == 1 || fanout == Fanout.SEQUENTIAL) {
            for (RedisCommands<String, String> node : sync) {
                node.evalsha(sha, ScriptOutputType.INTEGER, keys, held.token());
            }
            return;
        }
        List<RedisFuture<Long>> replies = new ArrayList<>(async.size());
        for (RedisAsyncCommands<String, String> node : async) {
            replies.add(node.evalsha(sha, ScriptOutputType.INTEGER, keys, held.token()));
        }
        for (RedisFuture<Long> f : replies) {
            f.toCompletableFuture().join();
        }
    }

    @Override
    public void close() {
        for (StatefulRedisConnection<String, String> c : connections) {
            c.close();
        }
        client.shutdown();
    }
}
