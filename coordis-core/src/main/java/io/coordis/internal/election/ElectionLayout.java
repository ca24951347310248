package io.coordis.internal.election;

import io.coordis.internal.Keys;
import io.coordis.internal.StoredValues;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * How a lease election is kept in Redis, in one place: its keys, the fields of its leadership details, and
 * their one reader. The scripts that write and read them ({@code elect.lua}, the leader's read {@code internal/lease/claim.lua},
 * {@code resign.lua}, and the inspector's {@code string-state.lua}) point here. For an election
 * {@code reports}:
 * <pre>
 * reports              the leader's id (SET NX PX), renewed by the leader
 * {reports}:term       term counter, a plain integer that never expires: every new leadership takes the next
 * {reports}:leader     leadership details, a hash: id, term, since, claim (see the field names below); expires
 *                      with the leader key and describes the leadership only while its id equals its value
 * {reports}:changed    channel on which a new leadership is announced ("elected TERM ID")
 * </pre>
 * Counter elections ({@code INCR} + {@code EXPIRE}) keep no details. Public for the inspector; applications
 * have no need of it.
 */
public final class ElectionLayout {
    // The leadership details' fields as elect.lua writes them: id, term, since, claim ('id' and 'claim' are
    // compared by the scripts, string-state.lua reads 'id').
    static final String TERM = "term";
    static final String SINCE = "since";
    /** What {@code claim.lua} is given to read the leadership details: the identity field, then the term. */
    static final List<String> DETAILS_READ = List.of("id", TERM);

    private ElectionLayout() {
    }

    /** What an election's leadership details say; a field that is missing or unreadable is empty. */
    public record LeadershipDetails(OptionalLong term, Optional<Instant> since) {
    }

    /**
     * The key of an election's term counter, derived from its name.
     *
     * @param name the election's Redis key
     * @return the term key, in the name's hash slot
     */
    public static String termKey(String name) {
        return Keys.derived(name, TERM);
    }

    /**
     * The key of an election's leadership details, derived from its name.
     *
     * @param name the election's Redis key
     * @return the details key, in the name's hash slot
     */
    public static String detailsKey(String name) {
        return Keys.derived(name, "leader");
    }

    /**
     * The channel on which changes of leader are announced, derived from the election's name.
     *
     * @param name the election's Redis key
     * @return the channel name, in the name's hash slot
     */
    public static String changedChannel(String name) {
        return Keys.derived(name, "changed");
    }

    /**
     * Reads leadership details from their fields (an {@code HGETALL} answer).
     *
     * @param fields the details hash, field to value; empty when there is none
     * @return the details, each empty when its field is missing or unreadable
     */
    public static LeadershipDetails leadershipDetails(Map<String, String> fields) {
        return new LeadershipDetails(StoredValues.number(fields.get(TERM)),
                StoredValues.instant(StoredValues.number(fields.get(SINCE))));
    }
}
