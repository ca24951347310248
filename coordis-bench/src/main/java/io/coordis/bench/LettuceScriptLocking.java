package io.coordis.bench;

import io.coordis.internal.Keys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Coordis's own lock protocol sent by raw Lettuce: the same {@code acquire.lua} and {@code release.lua}, by
 * {@code EVALSHA}, with the same keys ({@code K}, {@code {K}:fence}, {@code {K}:holder}, {@code {K}:released})
 * and arguments, on one shared connection, through the synchronous API. Nothing else: no lease, no renewal,
 * no local waiting queue, no reply checks beyond "granted". Set beside the plain {@code SET NX} client
 * ({@link LettuceLocking}), it splits what a Coordis lock costs into the protocol's part (the fenced acquire
 * script against {@code SET NX}) and the client library's part (everything Coordis does around the same
 * two calls). Single server only.
 */
final class LettuceScriptLocking implements Locking {
    private static final String TTL_MILLIS = "30000";

    private final RedisClient client = RedisClient.create();
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> sync;
    private final String acquire;
    private final String release;
    private final String holder = "bench@" + ManagementFactory.getRuntimeMXBean().getName();

    /** A held lock: its key and the token in it. */
    private record Held(String key, String token) {
    }

    LettuceScriptLocking(List<String> uris) {
        if (uris.size() != 1) {
            throw new IllegalArgumentException("the script client runs on one server, got " + uris.size());
        }
        this.connection = client.connect(RedisURI.create(uris.get(0)));
        this.sync = connection.sync();
        this.acquire = sync.scriptLoad(source("acquire.lua"));
        this.release = sync.scriptLoad(source("release.lua"));
    }

    /** The script as Coordis ships it, read from coordis-core's resources. */
    static String source(String name) {
        String path = "io/coordis/lock/" + name;
        try (InputStream in = LettuceScriptLocking.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("no " + path + " on the class path (coordis-core's resources)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }

    @Override
    public Object tryLock(String key) {
        String token = LettuceLocking.token();
        String released = Keys.derived(key, "released");
        String[] keys = {key, Keys.derived(key, "fence"), Keys.derived(key, "holder"), released};
        List<Object> reply = sync.evalsha(acquire, ScriptOutputType.MULTI, keys, token, TTL_MILLIS, holder,
                Long.toString(System.currentTimeMillis()));
        return Long.valueOf(1).equals(reply.get(0)) ? new Held(key, token) : null;
    }

    @Override
    public Object lock(String key) throws InterruptedException {
        return Locking.spin(this, key);
    }

    @Override
    public void unlock(Object handle) {
        Held held = (Held) handle;
        String released = Keys.derived(held.key(), "released");
        sync.evalsha(release, ScriptOutputType.MULTI, new String[] {held.key(), released}, held.token(), released);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
