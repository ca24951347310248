package io.coordis.internal.redis;

import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KillArgs;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The administrative commands of one node, for the doctor, the inspector and housekeeping: {@code INFO},
 * {@code CONFIG GET}, {@code ACL}, {@code TIME}, {@code SCAN}, {@code PTTL}, {@code MEMORY USAGE}, {@code PUBSUB}
 * and {@code CLIENT KILL}. Obtained from {@link RedisNode#admin()}; sent on the node's command connection with its
 * deadline, so a future from here can be awaited with {@link RedisNode#await}. Results leave as plain Java values,
 * failures as {@link io.coordis.CoordisException} naming the node. Does not block; thread-safe.
 */
public final class AdminCommands {
    private final Connection<String, String> connection;

    AdminCommands(Connection<String, String> connection) {
        this.connection = connection;
    }

    /** {@code INFO section} as a map of its {@code field:value} lines. */
    public CompletableFuture<Map<String, String>> info(String section) {
        return connection.send(c -> c.info(section)).thenApply(AdminCommands::parseInfo);
    }

    /** {@code CONFIG GET pattern...} as a map of parameter to value. */
    public CompletableFuture<Map<String, String>> configGet(String... patterns) {
        return connection.send(c -> c.configGet(patterns));
    }

    /** {@code ACL WHOAMI}: the user this connection authenticated as. */
    public CompletableFuture<String> aclWhoami() {
        return connection.send(c -> c.aclWhoami());
    }

    /** {@code ACL GETUSER user}: the user's flags, rules and patterns as Redis returns them (a flat list). */
    public CompletableFuture<List<Object>> aclGetuser(String user) {
        return connection.send(c -> c.aclGetuser(user));
    }

    /** {@code ACL CAT category}: the commands (and, from Redis 7, subcommands as {@code cmd|sub}) in it. */
    public CompletableFuture<List<String>> aclCat(String category) {
        return connection.send(c -> c.dispatch(CommandType.ACL, new ValueListOutput<>(StringCodec.UTF8),
                new CommandArgs<>(StringCodec.UTF8).add("CAT").add(category)));
    }

    /** {@code TIME}, in microseconds since the epoch on the server's clock. */
    public CompletableFuture<Long> timeMicros() {
        return connection.send(c -> c.time()).thenApply(t -> Long.parseLong(t.get(0)) * 1_000_000L + Long.parseLong(t.get(1)));
    }

    /**
     * One {@code SCAN cursor MATCH match COUNT count [TYPE type]} step (never {@code KEYS}): answers the
     * next cursor ({@code "0"} when the scan is complete) and the keys of this step. {@code type} may be
     * {@code null} for every type; the TYPE filter needs Redis 6.0 or later.
     */
    public CompletableFuture<KeyPage> scan(String cursor, String match, String type, long count) {
        KeyScanArgs args = KeyScanArgs.Builder.matches(match).limit(count);
        if (type != null) {
            args.type(type);
        }
        return connection.send(c -> c.scan(ScanCursor.of(cursor), args))
                .thenApply(page -> new KeyPage(page.isFinished() ? "0" : page.getCursor(), List.copyOf(page.getKeys())));
    }

    /** One step of a {@link #scan}: the cursor to continue from ({@code "0"}: done) and the keys found. */
    public record KeyPage(String cursor, List<String> keys) {
    }

    /**
     * A walk over the keys matching {@code match} ({@code SCAN ... MATCH match COUNT count [TYPE type]}, never
     * {@code KEYS}) that keeps Lettuce's own cursor between steps, so it also covers every master of a Redis
     * Cluster (a cursor passed as text cannot go on to the next master there). {@code type} may be {@code null}.
     */
    public KeyWalk walk(String match, String type, long count) {
        KeyScanArgs args = KeyScanArgs.Builder.matches(match).limit(count);
        if (type != null) {
            args.type(type);
        }
        return new KeyWalk(args);
    }

    /** The steps of one {@link #walk}: call {@link #next()} until {@link #finished()}. Not thread-safe. */
    public final class KeyWalk {
        private final KeyScanArgs args;
        private ScanCursor cursor = ScanCursor.INITIAL;

        private KeyWalk(KeyScanArgs args) {
            this.args = args;
        }

        /** Whether the last step was the last one. */
        public boolean finished() {
            return cursor.isFinished();
        }

        /** The next step's keys (possibly none); the walk goes on from where it ends once it completes. */
        public CompletableFuture<List<String>> next() {
            ScanCursor from = cursor;
            return connection.send(c -> c.scan(from, args)).thenApply(page -> {
                cursor = page;
                return List.copyOf(page.getKeys());
            });
        }
    }

    /** {@code PTTL key}: milliseconds left, {@code -1} for a key without expiry, {@code -2} for none. */
    public CompletableFuture<Long> pttl(String key) {
        return connection.send(c -> c.pttl(key));
    }

    /** {@code MEMORY USAGE key}: the bytes a key and its value take (an estimate for large values); null for none. */
    public CompletableFuture<Long> memoryUsage(String key) {
        return connection.send(c -> c.memoryUsage(key));
    }

    /** {@code PUBSUB CHANNELS pattern}: the channels with at least one subscriber on this node. */
    public CompletableFuture<List<String>> pubsubChannels(String pattern) {
        return connection.send(c -> c.pubsubChannels(pattern));
    }

    /** {@code PUBSUB NUMSUB channel...}: subscribers per channel on this node (pattern subscribers not counted). */
    public CompletableFuture<Map<String, Long>> pubsubNumsub(List<String> channels) {
        if (channels.isEmpty()) {
            return CompletableFuture.completedFuture(Map.of());
        }
        return connection.send(c -> c.pubsubNumsub(channels.toArray(String[]::new)));
    }

    /**
     * {@code CLIENT KILL ID id}: ends another connection of this client on the server at once; on a cluster on
     * the master {@code node} the connection was opened to ({@code null} elsewhere).
     */
    CompletableFuture<Long> killClient(long id, RedisURI node) {
        return connection.send(node, c -> c.clientKill(KillArgs.Builder.id(id)));
    }

    static Map<String, String> parseInfo(String text) {
        Map<String, String> fields = new HashMap<>();
        for (String line : text.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return fields;
    }
}
