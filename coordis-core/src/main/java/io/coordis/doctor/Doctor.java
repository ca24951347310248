package io.coordis.doctor;

import io.coordis.CoordisException;
import io.coordis.RequiredCommands;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Checks whether the Redis servers a client talks to are set up the way Coordis needs them, and says what to
 * change when not: server version and role, replication, {@code maxmemory-policy} (eviction silently drops
 * locks), persistence, whether the ACL user may run every command Coordis sends ({@link RequiredCommands}),
 * and, with several nodes (Redlock), how far their clocks are apart; on request ({@link #oldLayout()}, a walk over
 * the keyspace) whether keys of the old per-name layout are left.
 *
 * <p>Obtained from {@link io.coordis.Coordis#doctor()}. Read-only except {@link #removeOldLayout()}:
 * {@link #examine} sends {@code INFO}, {@code CONFIG GET}, {@code ACL WHOAMI}, {@code ACL GETUSER},
 * {@code ACL CAT} and {@code TIME}, and nothing that writes. What the user may not read becomes an
 * {@link Finding.Severity#UNKNOWN} finding, never an exception. Implementations are thread-safe.
 *
 * <p>Permissions are judged from the user's rules ({@code ACL GETUSER}, which needs rights that application
 * users usually lack: run the doctor with an administrator's URL to check an application user's rules by
 * name, see {@link #examine(Optional)}).
 */
public interface Doctor {
    /** Default largest clock difference between Redlock nodes before a warning: 1% of a 10 s TTL. */
    Duration DEFAULT_MAX_SKEW = Duration.ofMillis(100);

    /**
     * {@link #examine(Optional, Duration)} for the connected user with the default skew limit.
     *
     * @return the report
     * @throws InterruptedException when interrupted while waiting for a node
     */
    default DoctorReport examine() throws InterruptedException {
        return examine(Optional.empty(), DEFAULT_MAX_SKEW);
    }

    /**
     * {@link #examine(Optional, Duration)} with the default skew limit.
     *
     * @param user whose permissions to check; empty for the user this client runs as
     * @return the report
     * @throws InterruptedException when interrupted while waiting for a node
     */
    default DoctorReport examine(Optional<String> user) throws InterruptedException {
        return examine(user, DEFAULT_MAX_SKEW);
    }

    /**
     * Examines every node.
     *
     * @param user    whose permissions to check; empty for the user this client runs as
     * @param maxSkew largest clock difference between nodes before a warning
     * @return the report
     * @throws InterruptedException when interrupted while waiting for a node
     */
    DoctorReport examine(Optional<String> user, Duration maxSkew) throws InterruptedException;

    /**
     * Looks on every node for the keys of the old per-name layout under the client's key prefix, which this
     * version never removes: the per-name counters {@code {name}:fence} and {@code {name}:term} (plain integers
     * without expiry), and holder details, permit counts, waiter lists and markers left without expiry. One
     * finding per node, {@code old-layout}: OK when there are none, else WARN with their number per suffix, the
     * memory they take (from {@code MEMORY USAGE} of a sample of 200, extrapolated) and how
     * to remove them ({@link #removeOldLayout()}); UNKNOWN when a command is refused. Add them to a report with
     * {@link DoctorReport#with}.
     *
     * <p>Read-only: {@code SCAN} (never {@code KEYS}), 1,000 keys a step, with {@code PTTL} and {@code GET} of the
     * candidates pipelined per step. Blocks for a walk over the keyspace, a round trip or two per 1,000 keys: meant
     * for an operator's check, not a health probe.
     *
     * @return one finding per node
     * @throws InterruptedException when interrupted while waiting for a node
     */
    List<Finding> oldLayout() throws InterruptedException;

    /**
     * Deletes, on every node, the keys of the old per-name layout under the client's key prefix that are not in
     * use: the per-name counters {@code {name}:fence} and {@code {name}:term} left without an expiry (fencing
     * numbers and terms are now taken from Redis's clock, far above them, and their counters expire), holder
     * details without expiry whose lock does not hold the token they name, and permit counts, waiter lists and
     * markers without expiry whose object does not exist. Walks the keys with {@code SCAN} and deletes a step's
     * leftovers at a time, each with one script that checks it is still unused. Queue keys are never touched.
     *
     * <p>Run it once no client of the old layout is left: such a client still counts on its per-name counter, and
     * would start again from 1. Blocks for a walk over the keyspace; throws {@link CoordisException} when a node
     * fails, after the keys already deleted.
     *
     * @throws InterruptedException when interrupted while waiting for a node; keys already deleted stay deleted
     * @return per node, what was deleted and what was kept
     */
    List<OldLayoutRemoval> removeOldLayout() throws InterruptedException;
}
