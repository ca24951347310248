package io.coordis.internal.inspect;

import io.coordis.AccessDeniedException;
import io.coordis.CoordisException;
import io.coordis.inspect.Inspector;
import io.coordis.internal.election.ElectionLayout;
import io.coordis.internal.lock.LockLayout;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.RedisNode;
import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.coordis.internal.StoredValues.number;
import static io.coordis.internal.StoredValues.pairs;

/**
 * What {@code string-state.lua} read about one string key on one node, and what kind of object it is.
 *
 * <p>How a string key is classified, in this order: holder details whose token equals the value make a
 * Coordis lock; leadership details whose id equals the value make a Coordis election; a value that is a
 * plausible expiry time (Unix seconds or milliseconds within a year of now) makes a legacy lock; a term
 * counter beside it makes an election led by another client; a fencing counter beside it makes a lock held
 * by another client; otherwise a key with a TTL and a short value (at most {@value #FOREIGN_MAX_BYTES}
 * bytes: lock tokens are short random strings) is taken for another client's lock ({@code SET k v NX PX}).
 * That last rule is a guess: a short cached value with a TTL looks the same, which is why coordination
 * belongs on a Redis of its own. Keys without a TTL and not matching an earlier rule are not shown.
 */
record StringRead(String type, String value, long strlen, long pttl, OptionalLong fence, Map<String, String> holder,
                  Map<String, String> leadership, OptionalLong term, List<AuditEntry> audit, long nowMillis,
                  List<LockHolder> readers, long writerWaitingMillis) {
    static final LuaScript SCRIPT = LuaScript.load(StringRead.class, "string-state.lua");
    private static final Logger LOG = LoggerFactory.getLogger(Inspector.class);
    static final int FOREIGN_MAX_BYTES = 128;
    static final int VALUE_BYTES = 256;
    private static final long YEAR_MS = Duration.ofDays(366).toMillis();

    enum Kind { NONE, LOCK, LEGACY_LOCK, ELECTION, OTHER }

    static List<String> keys(String name) {
        return List.of(name, LockLayout.fenceKey(name), LockLayout.holderKey(name), ElectionLayout.detailsKey(name),
                ElectionLayout.termKey(name), LockLayout.auditKey(name), LockLayout.readersKey(name),
                LockLayout.readerDetailsKey(name));
    }

    static List<String> args(int auditEntries) {
        return List.of(Integer.toString(auditEntries), Integer.toString(VALUE_BYTES));
    }

    /** @return the read, or a read of only the type when the key holds something other than a string */
    static StringRead parse(String name, Object reply) {
        List<?> r = (List<?>) reply;
        String type = (String) r.get(0);
        if (r.size() == 1) {
            return new StringRead(type, null, 0, -2, OptionalLong.empty(), Map.of(), Map.of(), OptionalLong.empty(),
                    List.of(), 0, List.of(), 0);
        }
        long now = (Long) r.get(9);
        return new StringRead(type, r.get(1) instanceof String s ? s : null, (Long) r.get(2), (Long) r.get(3),
                number(r.get(4)), pairs(r.get(5)), pairs(r.get(6)), number(r.get(7)),
                ((List<?>) r.get(8)).stream().map(e -> LockLayout.auditEntry((List<?>) e)).toList(), now,
                LockLayout.readHolds(name, (List<?>) r.get(10), (List<?>) r.get(11), now), (Long) r.get(12));
    }

    /**
     * Reads {@code names} on every node; fails only when every node fails. Result: per name, per node. With
     * {@code skipDenied} (listings) a key this user's ACL may not read is an outcome without a read rather
     * than a failure, so one tenant's {@code ls} shows its own objects and leaves the others' out.
     */
    static List<List<NodeRead>> read(List<RedisNode> nodes, List<String> names, int auditEntries, boolean skipDenied)
            throws InterruptedException {
        List<List<NodeRead>> out = new ArrayList<>();
        names.forEach(n -> out.add(new ArrayList<>()));
        CoordisException failure = null;
        int failed = 0;
        for (RedisNode node : nodes) {
            try {
                List<StringRead> reads = read(node, names, auditEntries, skipDenied);
                for (int i = 0; i < names.size(); i++) {
                    String error = reads.get(i) == null ? "not readable by this user" : null;
                    out.get(i).add(new NodeRead(node.address(), reads.get(i), error));
                }
            } catch (CoordisException e) {
                failure = failure == null ? e : failure;
                failed++;
                for (List<NodeRead> o : out) {
                    o.add(new NodeRead(node.address(), null, e.getMessage()));
                }
            }
        }
        if (failure != null && failed == nodes.size()) {
            throw failure;
        }
        return out;
    }

    /** One node's reads, in the order of {@code names}; with {@code skipDenied}, null for a key the ACL denies. */
    static List<StringRead> read(RedisNode node, List<String> names, int auditEntries, boolean skipDenied)
            throws InterruptedException {
        List<CompletableFuture<Object>> sent = new ArrayList<>();
        for (String name : names) {
            sent.add(node.eval(SCRIPT, keys(name), args(auditEntries)));
        }
        List<StringRead> reads = new ArrayList<>();
        for (int i = 0; i < sent.size(); i++) {
            try {
                reads.add(parse(names.get(i), Keyspace.await(node, sent.get(i))));
            } catch (AccessDeniedException e) {
                if (!skipDenied || e.reason() != AccessDeniedException.Reason.KEY) {
                    throw e; // a command this user may not run is a setup error, never an empty listing
                }
                LOG.debug("listing: '{}' left out, this user may not read it", names.get(i));
                reads.add(null);
            }
        }
        return reads;
    }

    boolean isString() {
        return type.equals("string") || type.equals("none");
    }

    Kind kind() {
        if (!isString()) {
            return Kind.OTHER;
        }
        if (value == null) {
            return Kind.NONE;
        }
        if (!holder.isEmpty() || LockLayout.READERS.equals(value)) {
            return Kind.LOCK;
        }
        if (!leadership.isEmpty()) {
            return Kind.ELECTION;
        }
        if (legacyExpiry().isPresent()) {
            return Kind.LEGACY_LOCK;
        }
        if (term.isPresent()) {
            return Kind.ELECTION;
        }
        if (fence.isPresent()) {
            return Kind.LOCK;
        }
        return pttl >= 0 && strlen <= FOREIGN_MAX_BYTES ? Kind.LOCK : Kind.OTHER;
    }

    /** The expiry a legacy value stores, Unix ms, when the value is a plausible one (within a year of now). */
    OptionalLong legacyExpiry() {
        if (value == null || strlen > 32 || !value.matches("\\d+(\\.\\d*)?")) {
            return OptionalLong.empty();
        }
        double n = Double.parseDouble(value);
        long ms = n < 1e11 ? ((long) Math.floor(n) + 1) * 1000 - 1 : (long) n;
        return Math.abs(ms - nowMillis) <= YEAR_MS ? OptionalLong.of(ms) : OptionalLong.empty();
    }

    /** Time left: for a legacy value until its stored expiry, otherwise the key's PTTL; empty when none. */
    Optional<Duration> ttl() {
        OptionalLong legacy = legacyExpiry();
        if (legacy.isPresent()) {
            return Optional.of(Duration.ofMillis(Math.max(0, legacy.getAsLong() - nowMillis)));
        }
        return pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty();
    }

    /** Whether a legacy value's stored expiry has passed (the lock is free to take over). */
    boolean legacyExpired() {
        OptionalLong legacy = legacyExpiry();
        return legacy.isPresent() && legacy.getAsLong() < nowMillis;
    }
}
