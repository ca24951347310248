package io.coordis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The Redis commands Coordis sends, directly or from inside its Lua scripts, grouped by what needs them —
 * the list to grant a least-privilege ACL user.
 *
 * <p>Redis checks ACL permissions for every {@code redis.call} inside a script as well as for the
 * {@code EVALSHA} itself, so the commands the scripts call are listed too. Commands are written the way
 * ACL rules name them: lower case, subcommands as {@code command|subcommand}.
 *
 * <p>Example: a user that may use every primitive on keys and channels under {@code app:} only:
 * <pre>
 * ACL SETUSER app on &gt;secret resetkeys resetchannels ~app:* &amp;app:* ~&#123;app:* &amp;&#123;app:* -@all
 *     +evalsha +eval +script|load ... (RequiredCommands.aclRules(EnumSet.allOf(Use.class)))
 * </pre>
 * Note that derived keys of a name {@code app:x} are {@code {app:x}:suffix}, so a prefix rule needs both
 * {@code ~app:*} and <code>~&#123;app:*</code> (and the same for channels); {@link #keyPatterns(String)} gives
 * both.
 *
 * <p>Immutable; the lists are fixed for a given Coordis version.
 */
public final class RequiredCommands {

    /** What a group of commands is needed for. */
    public enum Use {
        /** Every connection: loading and running scripts, the connection handshake. */
        CONNECTION,
        /** Single-node locks and Redlock (acquire, extend, release, fencing numbers, force-unlock). */
        LOCKS,
        /** Signals: notify/wait, latched events, broadcast and unicast; count-down latches. */
        SIGNALS,
        /** Leader election (lease and counter). */
        ELECTIONS,
        /** Plain and reliable queues. */
        QUEUES,
        /** Rate limiters. */
        RATE_LIMITS,
        /**
         * On Redis Cluster only, in addition to the others: reading the topology and following redirects.
         * Not among {@link #allRequiredUses()}; a cluster user needs {@link #clusterUses()}.
         */
        CLUSTER,
        /** Listing and inspecting objects ({@code coordis ls}, {@code inspect}, {@link io.coordis.inspect.Inspector}). */
        INSPECTION,
        /**
         * Not required: without them Coordis still works but cannot cut a blocked connection short on the
         * server ({@code client|kill} after an interrupted blocking take; the connection is closed instead) or
         * tell a Redis restart from a failover by its run id ({@code info}).
         */
        OPTIONAL
    }

    /** One command, what needs it and why. */
    public record Command(String name, Use use, String why) {
        /**
         * Checks that no component is null.
         *
         * @param name the command as ACL rules name it
         * @param use  what needs it
         * @param why  why, in a few words
         * @throws NullPointerException when a component is null
         */
        public Command {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(use, "use");
            Objects.requireNonNull(why, "why");
        }
    }

    private static final List<Command> ALL = List.of(
            c("evalsha", Use.CONNECTION, "every script runs by its SHA"),
            c("eval", Use.CONNECTION, "first run of a script after SCRIPT FLUSH or a restart (NOSCRIPT fallback)"),
            c("script|load", Use.CONNECTION, "loading scripts ahead of use"),
            c("ping", Use.CONNECTION, "connection health checks"),
            c("hello", Use.CONNECTION, "protocol negotiation on connect"),
            c("select", Use.CONNECTION, "a database number in the URL (redis://host:6379/3)"),

            c("set", Use.LOCKS, "lock key with NX PX, as foreign clients write it; a new fencing counter"),
            c("get", Use.LOCKS, "lock owner check, Redlock's fencing write-back"),
            c("del", Use.LOCKS, "release"),
            c("pexpire", Use.LOCKS, "extend; holder details, read holds and semaphore keys expire with the hold"),
            c("pttl", Use.LOCKS, "time left"),
            c("incrby", Use.LOCKS, "fencing numbers, a block of them for hand-offs inside one client"),
            c("hset", Use.LOCKS, "holder information"),
            c("hget", Use.LOCKS, "holder information"),
            c("hdel", Use.LOCKS, "holder information"),
            c("exists", Use.LOCKS, "whether waiters listen (extend.lua noting, release-after.lua); an idle semaphore"),
            c("type", Use.LOCKS, "wrong-type checks naming the object"),
            c("time", Use.LOCKS, "Redis's clock: where a new fencing counter starts, legacy timestamps and ages"),
            c("lpush", Use.LOCKS, "force-unlock audit entries"),
            c("ltrim", Use.LOCKS, "bounded force-unlock audit"),
            c("publish", Use.LOCKS, "waking waiters on release"),
            c("subscribe", Use.LOCKS, "waiting for a release"),
            c("unsubscribe", Use.LOCKS, "a wait for a release ends"),
            c("zadd", Use.LOCKS, "read holds of read-write locks; semaphore holders' expiries and waiters' places"),
            c("zscore", Use.LOCKS, "a read hold's expiry; a permit's expiry, a waiter's place"),
            c("zrem", Use.LOCKS, "releasing read holds and permits; waiters that leave"),
            c("zrange", Use.LOCKS, "the longest read hold, which the key's expiry follows"),
            c("zrangebyscore", Use.LOCKS, "read holds and permits whose TTL ran out, lapsed waiters, the first in line"),
            c("hgetall", Use.LOCKS, "read holds' details; permits held"),
            c("wait", Use.LOCKS, "grants that must reach replicas (LockOptions.withReplication)"),

            c("publish", Use.SIGNALS, "notify"),
            c("subscribe", Use.SIGNALS, "wait"),
            c("unsubscribe", Use.SIGNALS, "a waiter closes"),
            c("psubscribe", Use.SIGNALS, "waiting on patterns"),
            c("punsubscribe", Use.SIGNALS, "a pattern waiter closes"),
            c("pubsub|channels", Use.SIGNALS, "unicast signals find a waiter"),
            c("set", Use.SIGNALS, "latched events"),
            c("get", Use.SIGNALS, "latched events"),
            c("del", Use.SIGNALS, "clearing latched events"),
            c("type", Use.SIGNALS, "wrong-type checks naming the object"),
            c("incrby", Use.SIGNALS, "count-down latches count down"),
            c("pexpire", Use.SIGNALS, "a count-down latch expires after its last change"),

            c("set", Use.ELECTIONS, "leadership key; a new term counter"),
            c("get", Use.ELECTIONS, "current leader"),
            c("del", Use.ELECTIONS, "resign"),
            c("pexpire", Use.ELECTIONS, "renewal"),
            c("expire", Use.ELECTIONS, "counter election (whole seconds, as the classic algorithm)"),
            c("pttl", Use.ELECTIONS, "term time left"),
            c("incr", Use.ELECTIONS, "counter election (INCR, as the classic algorithm)"),
            c("incrby", Use.ELECTIONS, "terms"),
            c("time", Use.ELECTIONS, "Redis's clock: where a new term counter starts"),
            c("type", Use.ELECTIONS, "wrong-type checks naming the object"),
            c("hget", Use.ELECTIONS, "candidate details (elect.lua, claim.lua)"),
            c("hset", Use.ELECTIONS, "candidate details (elect.lua)"),
            c("publish", Use.ELECTIONS, "observers learn of changes"),
            c("subscribe", Use.ELECTIONS, "observers and waiting candidates"),
            c("unsubscribe", Use.ELECTIONS, "an observer or a waiting candidate stops"),
            c("wait", Use.ELECTIONS, "terms that must reach replicas (ElectionOptions.withReplication)"),

            c("lpush", Use.QUEUES, "push"),
            c("rpush", Use.QUEUES, "nack to the consuming end, requeue"),
            c("rpop", Use.QUEUES, "take (FIFO)"),
            c("lpop", Use.QUEUES, "take (LIFO)"),
            c("brpop", Use.QUEUES, "blocking take (FIFO)"),
            c("blpop", Use.QUEUES, "blocking take (LIFO)"),
            c("lmove", Use.QUEUES, "reliable take"),
            c("blmove", Use.QUEUES, "blocking reliable take"),
            c("lindex", Use.QUEUES, "oldest message"),
            c("llen", Use.QUEUES, "depth"),
            c("lrem", Use.QUEUES, "removing a processed message from a caller-named processing list (Queue.remove)"),
            c("set", Use.QUEUES, "heartbeats"),
            c("del", Use.QUEUES, "a closing consumer's heartbeat and settled numbers"),
            c("exists", Use.QUEUES, "heartbeat checks; whether any failed-delivery count is kept"),
            c("hset", Use.QUEUES, "consumer registry, enqueue times"),
            c("hget", Use.QUEUES, "attempts, enqueue times"),
            c("hgetall", Use.QUEUES, "consumer registry"),
            c("hdel", Use.QUEUES, "attempts, enqueue times, registry"),
            c("hincrby", Use.QUEUES, "delivery attempts, settled delivery numbers"),
            c("incrby", Use.QUEUES, "the settled count (acked and dead-lettered messages)"),
            c("get", Use.QUEUES, "stats: the settled count"),
            c("hsetnx", Use.QUEUES, "first enqueue time kept on redelivery"),
            c("zadd", Use.QUEUES, "delayed retries"),
            c("zrangebyscore", Use.QUEUES, "delayed retries due"),
            c("zrem", Use.QUEUES, "delayed retries due"),
            c("zcard", Use.QUEUES, "delayed count"),
            c("type", Use.QUEUES, "wrong-type checks naming the object"),
            c("time", Use.QUEUES, "enqueue times, heartbeats"),
            c("client|id", Use.QUEUES, "identifying a blocked connection"),
            c("wait", Use.QUEUES, "pushes that must reach replicas (QueueOptions.withReplication)"),

            c("get", Use.RATE_LIMITS, "a limiter's theoretical arrival time"),
            c("set", Use.RATE_LIMITS, "a grant moves the arrival time on, expiring when the limiter is idle"),
            c("time", Use.RATE_LIMITS, "Redis's clock decides, not the clients'"),
            c("type", Use.RATE_LIMITS, "wrong-type checks naming the key"),

            c("cluster|nodes", Use.CLUSTER, "the slot map and the nodes, read on connect, on redirects and every 30 s"),
            c("asking", Use.CLUSTER, "following an ASK redirect while a slot migrates"),
            c("cluster|myid", Use.CLUSTER, "the node a pub/sub connection is on, asked as it connects"),

            c("scan", Use.INSPECTION, "listing objects (never KEYS)"),
            c("type", Use.INSPECTION, "what an object is"),
            c("get", Use.INSPECTION, "values"),
            c("getrange", Use.INSPECTION, "value prefixes"),
            c("strlen", Use.INSPECTION, "value sizes (string-state.lua)"),
            c("hgetall", Use.INSPECTION, "holder information, registries"),
            c("hget", Use.INSPECTION, "holder information"),
            c("pttl", Use.INSPECTION, "time left"),
            c("llen", Use.INSPECTION, "queue depth"),
            c("lindex", Use.INSPECTION, "oldest message"),
            c("lrange", Use.INSPECTION, "audit entries, dead letters"),
            c("zcard", Use.INSPECTION, "delayed count"),
            c("zrangebyscore", Use.INSPECTION, "read holds of read-write locks, semaphore holders and waiters with their times"),
            c("object|idletime", Use.INSPECTION, "age of in-flight messages (unknown without it)"),
            c("time", Use.INSPECTION, "ages measured on Redis's clock"),
            c("pubsub|numsub", Use.INSPECTION, "subscriber counts"),
            c("pubsub|channels", Use.INSPECTION, "signal channels"),

            c("client|kill", Use.OPTIONAL, "ending a blocked pop on the server after the caller gave up"),
            c("info", Use.OPTIONAL, "Redis run id: telling a restarted Redlock node from a live one"));

    private RequiredCommands() {
    }

    private static Command c(String name, Use use, String why) {
        return new Command(name, use, why);
    }

    /**
     * Every command with what needs it, in a stable order (a command needed by several uses appears for each).
     *
     * @return every command, in a stable order, repeated for each use that needs it
     */
    public static List<Command> all() {
        return ALL;
    }

    /**
     * The distinct command names the given uses need, in a stable order.
     *
     * @param uses the uses to cover
     * @return their command names, each once, in a stable order
     */
    public static Set<String> names(Set<Use> uses) {
        Objects.requireNonNull(uses, "uses");
        Set<String> names = new LinkedHashSet<>();
        for (Command command : ALL) {
            if (uses.contains(command.use())) {
                names.add(command.name());
            }
        }
        return Collections.unmodifiableSet(names);
    }

    /**
     * The distinct command names every primitive and inspection need on a standalone, replicated or Sentinel
     * Redis (everything except {@link Use#OPTIONAL} and {@link Use#CLUSTER}).
     *
     * @return the command names of {@link #allRequiredUses()}, each once
     */
    public static Set<String> required() {
        return names(allRequiredUses());
    }

    /**
     * Every use except {@link Use#OPTIONAL} and {@link Use#CLUSTER}: what a user needs for all primitives and
     * inspection on a standalone, replicated or Sentinel Redis.
     *
     * @return every use but {@link Use#OPTIONAL} and {@link Use#CLUSTER}
     */
    public static Set<Use> allRequiredUses() {
        return Collections.unmodifiableSet(EnumSet.complementOf(EnumSet.of(Use.OPTIONAL, Use.CLUSTER)));
    }

    /**
     * {@link #allRequiredUses()} and {@link Use#CLUSTER}: what a user needs for everything on Redis Cluster.
     *
     * @return every use but {@link Use#OPTIONAL}
     */
    public static Set<Use> clusterUses() {
        EnumSet<Use> uses = EnumSet.complementOf(EnumSet.of(Use.OPTIONAL));
        return Collections.unmodifiableSet(uses);
    }

    /**
     * ACL rules granting exactly the commands the given uses need, starting from {@code -@all}:
     * e.g. {@code "-@all +evalsha +eval +script|load ..."}. Key and channel patterns are not included;
     * see {@link #keyPatterns(String)}.
     *
     * @param uses the uses whose commands to grant
     * @return the rules, separated by spaces, starting with {@code -@all}
     */
    public static String aclRules(Set<Use> uses) {
        StringBuilder rules = new StringBuilder("-@all");
        for (String name : names(uses)) {
            rules.append(" +").append(name);
        }
        return rules.toString();
    }

    /**
     * The ACL key and channel patterns that cover every object whose name starts with {@code prefix},
     * including derived keys ({@code {name}:suffix}) and channels: e.g. for {@code app:} →
     * <code>~app:* ~&#123;app:* &amp;app:* &amp;&#123;app:*</code>.
     *
     * @param prefix the start of every name the user may use, e.g. {@code app:}
     * @return the key patterns, then the channel patterns
     * @throws IllegalArgumentException when the prefix is empty or holds a glob character
     */
    public static List<String> keyPatterns(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        if (prefix.isEmpty()) {
            throw new IllegalArgumentException("prefix is empty; give the start shared by the names, e.g. 'app:'");
        }
        for (char ch : prefix.toCharArray()) {
            if ("*?[]\\ ".indexOf(ch) >= 0) {
                throw new IllegalArgumentException("prefix '" + prefix + "' holds '" + ch
                        + "', which ACL patterns would read as a glob or separator; use plain characters");
            }
        }
        List<String> patterns = new ArrayList<>();
        patterns.add("~" + prefix + "*");
        patterns.add("~{" + prefix + "*");
        patterns.add("&" + prefix + "*");
        patterns.add("&{" + prefix + "*");
        return List.copyOf(patterns);
    }
}
