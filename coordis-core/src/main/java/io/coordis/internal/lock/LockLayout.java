package io.coordis.internal.lock;

import io.coordis.internal.Keys;
import io.coordis.internal.StoredValues;
import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static io.coordis.internal.StoredValues.duration;
import static io.coordis.internal.StoredValues.instant;
import static io.coordis.internal.StoredValues.number;

/**
 * How a lock is kept in Redis, in one place: its keys, the fields of its holder details, its audit entries,
 * Redlock's restart-guard marker, and the one reader of each. The scripts that write and read these
 * ({@code acquire.lua}, {@code force-unlock.lua}, the holder's read {@code internal/lease/claim.lua}, and the
 * inspector's {@code string-state.lua}) point here; a change of layout changes them and this class together.
 * For a lock {@code orders}:
 * <pre>
 * orders               the token (SET NX PX, compatible with any client that locks that way)
 * {orders}:fence       fencing counter, a plain integer that never expires
 * {orders}:holder      holder details, a hash: token, holder, fence, since, ttl (see the field names below), with
 *                      the lock's PX (set, extended and deleted with it); they describe the lock only while their
 *                      token equals the lock's value; and waiting-writer, until when (Unix ms, Redis's clock) a
 *                      writer waits for read holds to end: while read holds keep the key, the hash holds only
 *                      that mark, and expires with it (2 s)
 * {orders}:released    release channel, and a marker key of the same name while somebody waits (a busy answer
 *                      to a caller that waits sets it, with a PX 5 s past the holder's; a try sets nothing)
 * {orders}:audit       forced unlocks, newest first: JSON objects (see {@link AuditEntry}); at most
 *                      {@value #AUDIT_ENTRIES}, kept for a day after the last (an operator's record)
 * {orders}:readers     read holds of the read-write lock: a sorted set of token → expiry (Unix ms, Redis's clock),
 *                      while {@code orders} holds {@value #READERS} with a PX covering the longest of them; the
 *                      set has the same PX
 * {orders}:readers:details  the read holds' details, a hash: {@code <token>:holder}, {@code <token>:fence},
 *                      {@code <token>:since}, {@code <token>:ttl}; the same PX as {@code orders}
 * {orders}:line       a fair lock's waiters in arrival order: a sorted set of place (a random id per waiting
 *                      acquisition) → arrival (Unix µs, Redis's clock, as text), as a semaphore's waiters
 * {orders}:line-until  when each place lapses unless its waiter renews it: a sorted set of place → Unix ms; both
 *                      with a PX 5 s past the last lapse ({@code fair-acquire.lua})
 * coordis:redlock:verified   per Redlock node (after the client's key prefix): the run_id a client verified
 * </pre>
 * So once a lock is released, or its holder died and its TTL ran out, only the fencing counter (and the audit
 * list of a lock forced open) remains of it.
 * Public for the inspector; applications have no need of it.
 */
public final class LockLayout {
    /** Redlock's restart-guard marker: one key per node after the client's key prefix, not derived from a name. */
    public static final String RESTART_GUARD_MARKER = "coordis:redlock:verified";
    /** The value of a read-write lock's key while read holds keep it (the scripts {@code read-*.lua} spell it too). */
    public static final String READERS = "coordis:readers";
    /** How many audit entries a lock keeps ({@code force-unlock.lua} trims to this). */
    public static final int AUDIT_ENTRIES = 100;

    // The holder details' fields as acquire.lua writes them: token, holder, fence, since, ttl
    // ('token' is compared by the scripts, which also read 'holder').
    static final String HOLDER = "holder";
    static final String FENCE = "fence";
    static final String SINCE = "since";
    static final String TTL = "ttl";
    /** What {@code claim.lua} is given to read the holder details: the identity field, then the fields to return. */
    static final List<String> DETAILS_READ = List.of("token", HOLDER, FENCE, SINCE, TTL);

    private LockLayout() {
    }

    /** What a lock's holder details say; a field that is missing or unreadable is empty. */
    public record HolderDetails(Optional<String> holderId, OptionalLong fence, Optional<Instant> since,
                                Optional<Duration> leaseTtl) {
    }

    /**
     * The key of a lock's fencing counter, derived from its name.
     *
     * @param name the lock's Redis key
     * @return the fence key, in the name's hash slot
     */
    public static String fenceKey(String name) {
        return Keys.derived(name, FENCE);
    }

    /**
     * The key of a lock's holder details, derived from its name.
     *
     * @param name the lock's Redis key
     * @return the holder key, in the name's hash slot
     */
    public static String holderKey(String name) {
        return Keys.derived(name, HOLDER);
    }

    /**
     * The channel on which a release is announced (and the waiter marker key of the same name).
     *
     * @param name the lock's Redis key
     * @return the channel name, in the name's hash slot
     */
    public static String releasedChannel(String name) {
        return Keys.derived(name, "released");
    }

    /**
     * A fair lock's line of waiters: a sorted set of place → arrival, as a semaphore's waiters
     * ({@link SemaphoreLayout#waitersKey}).
     *
     * @param name the lock's Redis key
     * @return the line key, in the name's hash slot
     */
    public static String lineKey(String name) {
        return Keys.derived(name, "line");
    }

    /**
     * The times until which a fair lock's waiters keep their place: a sorted set of place → lapse time, as a
     * semaphore's ({@link SemaphoreLayout#lapsesKey}).
     *
     * @param name the lock's Redis key
     * @return the key, in the name's hash slot
     */
    public static String lineLapsesKey(String name) {
        return Keys.derived(name, "line-until");
    }

    /**
     * The read holds of a read-write lock: a sorted set of token → expiry.
     *
     * @param name the read-write lock's Redis key
     * @return the readers key, in the name's hash slot
     */
    public static String readersKey(String name) {
        return Keys.derived(name, "readers");
    }

    /**
     * The details of a read-write lock's read holds, a hash of {@code <token>:<field>}.
     *
     * @param name the read-write lock's Redis key
     * @return the reader details key, in the name's hash slot
     */
    public static String readerDetailsKey(String name) {
        return Keys.derived(name, "readers:details");
    }

    /**
     * The key of a lock's audit entry, which a forced unlock writes.
     *
     * @param name the lock's Redis key
     * @return the audit key, in the name's hash slot
     */
    public static String auditKey(String name) {
        return Keys.derived(name, "audit");
    }

    /**
     * The read holds of a read-write lock, longest last, from {@code live} (a flat token/expiry list of its readers'
     * sorted set, expiries in Unix ms) and {@code details} (its readers' details hash, flat), read at {@code nowMillis}
     * on Redis's clock. A field that is missing reads as empty.
     *
     * @param key       the read-write lock's Redis key, named in each hold
     * @param live      the readers' sorted set as a flat token/expiry list, expiries in Unix ms
     * @param details   the readers' details hash as a flat field/value list
     * @param nowMillis Redis's time of the read, in Unix ms
     * @return the holds, the one with the most time left last
     */
    public static List<LockHolder> readHolds(String key, List<?> live, List<?> details, long nowMillis) {
        Map<String, String> fields = StoredValues.pairs(details);
        List<LockHolder> holds = new ArrayList<>();
        for (int i = 0; i + 1 < live.size(); i += 2) {
            String token = String.valueOf(live.get(i));
            long left = number(live.get(i + 1)).orElse(nowMillis) - nowMillis;
            holds.add(new LockHolder(key, token, Optional.ofNullable(fields.get(token + ":" + HOLDER)),
                    number(fields.get(token + ":" + FENCE)), Optional.of(Duration.ofMillis(Math.max(0, left))),
                    instant(number(fields.get(token + ":" + SINCE)))));
        }
        return holds;
    }

    /**
     * Reads holder details from their fields (an {@code HGETALL} answer); empty fields when there are none.
     *
     * @param fields the holder hash, field to value; empty when there is none
     * @return the details, each empty when its field is missing or unreadable
     */
    public static HolderDetails holderDetails(Map<String, String> fields) {
        return new HolderDetails(Optional.ofNullable(fields.get(HOLDER)), number(fields.get(FENCE)),
                instant(number(fields.get(SINCE))), duration(number(fields.get(TTL))));
    }

    /** As {@link #holderDetails(Map)}, from a flat field/value list as scripts return an {@code HGETALL}. */
    static HolderDetails holderDetails(List<?> flat) {
        return holderDetails(StoredValues.pairs(flat));
    }

    /**
     * Reads one audit entry from the flat field/value list that the inspector's {@code string-state.lua} makes
     * of it with Redis's {@code cjson}: {@code raw}, the entry as stored, then those of the fields that
     * {@code force-unlock.lua} writes which the entry holds with their type. Other programs may write the list
     * too: a field that is missing reads as empty.
     *
     * @param flat the script's field/value list
     * @return the entry; fields that are missing read as empty
     */
    public static AuditEntry auditEntry(List<?> flat) {
        Map<String, String> f = StoredValues.pairs(flat);
        return new AuditEntry(instant(number(f.get("at"))), text(f, "by"), text(f, "action"), text(f, "reason"),
                text(f, "holder"), number(f.get("fence")), f.getOrDefault("raw", ""));
    }

    private static Optional<String> text(Map<String, String> fields, String name) {
        return Optional.ofNullable(fields.get(name));
    }
}
