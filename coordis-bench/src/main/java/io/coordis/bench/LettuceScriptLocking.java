package io.coordis.bench;

import io.coordis.lock.DistributedLock;
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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    private final Map<String, Names> names = new ConcurrentHashMap<>();

    /**
     * The keys of one lock, derived once per name, as Coordis derives them once per lock object: {@code {K}:suffix}
     * (the benchmarks' names carry no hash tag of their own).
     */
    private record Names(String[] acquire, String[] release, String channel) {
        static Names of(String key) {
            String released = "{" + key + "}:released";
            return new Names(new String[] {key, "{" + key + "}:fence", "{" + key + "}:holder", released},
                    new String[] {key, released, "{" + key + "}:holder"}, released);
        }
    }

    LettuceScriptLocking(List<String> uris) {
        if (uris.size() != 1) {
            throw new IllegalArgumentException("the script client runs on one server, got " + uris.size());
        }
        this.connection = client.connect(RedisURI.create(uris.get(0)));
        this.sync = connection.sync();
        // the scripts as Coordis ships them, beside its lock engines
        this.acquire = sync.scriptLoad(script("acquire.lua"));
        this.release = sync.scriptLoad(script("release.lua"));
    }

    private static final String INCLUDE = "-- include fencing.lua";
    /** How long a fencing counter is kept after its last number, ms: Coordis's default. */
    private static final String RETENTION_MILLIS = "600000";

    /** Where Coordis keeps its lock scripts in its jar. */
    private static final String SCRIPTS = "io/coordis/internal/lock/";

    /** The script's source as Coordis ships it (read on the class path, where the jar's resources are open). */
    private static String script(String file) {
        try (InputStream in = DistributedLock.class.getClassLoader().getResourceAsStream(SCRIPTS + file)) {
            if (in == null) {
                throw new IllegalStateException(SCRIPTS + file + " is not in the jar of " + DistributedLock.class.getName());
            }
            String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            // the functions that take fencing numbers stand in for the line that names them, as Coordis loads it
            return file.equals("fencing.lua") ? source
                    : source.replaceAll("(?m)^" + Pattern.quote(INCLUDE) + "$",
                    Matcher.quoteReplacement(script("fencing.lua")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Object tryLock(String key) {
        String token = LettuceLocking.token();
        List<Object> reply = sync.evalsha(acquire, ScriptOutputType.MULTI, names.computeIfAbsent(key, Names::of).acquire(),
                token, TTL_MILLIS, holder, Long.toString(System.currentTimeMillis()), "", "", "", "", "1", "0",
                RETENTION_MILLIS);
        return Long.valueOf(1).equals(reply.get(0)) ? new LettuceLocking.Held(key, token) : null;
    }

    @Override
    public Object lock(String key) throws InterruptedException {
        return Locking.spin(this, key);
    }

    @Override
    public void unlock(Object handle) {
        LettuceLocking.Held held = (LettuceLocking.Held) handle;
        Names n = names.computeIfAbsent(held.key(), Names::of);
        sync.evalsha(release, ScriptOutputType.MULTI, n.release(), held.token(), n.channel());
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
