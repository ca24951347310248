package io.coordis.inspect;

import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * A lock as read from Redis at one moment: who holds it, for how long, with which fencing number, and for
 * Redlock what each node says. Immutable.
 *
 * @param name         the lock's name (its Redis key)
 * @param mode         single node, Redlock over several masters, or the legacy {@code SETNX} format
 * @param nodes        how many nodes were asked (1 unless Redlock)
 * @param agreeing     how many nodes hold the same value as the majority (0 when free); equals
 *                     {@code nodes} when they all agree
 * @param token        the value at the key on the agreeing nodes (a Coordis token, another client's
 *                     value, or for the legacy lock the expiry it stores); empty when free
 * @param holderId     the holder's id ({@code user@host:pid} by default); empty when free or held by a
 *                     client that records no holder (a plain {@code SET NX PX} by another library)
 * @param since        when the holder acquired it (the holder's wall clock); empty when unknown
 * @param heldFor      the server's clock minus {@code since}; empty when unknown
 * @param ttl          time left before the key expires (the smallest over agreeing nodes; for the legacy
 *                     lock the time until the expiry stored in its value); empty when free or never expiring
 * @param leaseTtl     the TTL the holder asked for, which its watchdog renews to every third of it; empty
 *                     when unknown (foreign or legacy holders, locks taken by older Coordis versions)
 * @param fencingToken the fencing number of the current acquisition (the largest over agreeing nodes);
 *                     empty when free or unknown
 * @param fenceCounter the fencing counter now (the largest over the nodes): the next acquisition gets a
 *                     higher number; empty when the lock was never taken by Coordis
 * @param waiters      Coordis clients subscribed for its release (waiting to acquire), over all nodes
 * @param flags        what deserves a look; see {@link Flag}
 * @param perNode      what each node holds, in the order the nodes were given
 * @param audit        forced unlocks recorded for this lock, newest first (read from the first node
 *                     that answered); empty for {@code ls}, which does not read them
 * @param readers      the read holds of a read-write lock while readers keep the key (its value is then
 *                     {@code coordis:readers}), the one lasting longest last; empty otherwise
 * @param writerWaiting how long a writer's mark that it waits for the readers lasts still (new readers wait
 *                     behind it); empty when no writer waits
 */
public record LockState(String name, Mode mode, int nodes, int agreeing, Optional<String> token,
                        Optional<String> holderId, Optional<Instant> since, Optional<Duration> heldFor,
                        Optional<Duration> ttl, Optional<Duration> leaseTtl, OptionalLong fencingToken,
                        OptionalLong fenceCounter, long waiters, Set<Flag> flags, List<NodeState> perNode,
                        List<AuditEntry> audit, List<LockHolder> readers, Optional<Duration> writerWaiting)
        implements ObjectState {

    /**
     * Copies the collections, so the state cannot change.
     *
     * @param name         the lock's name (its Redis key)
     * @param mode         single node, Redlock over several masters, or the legacy {@code SETNX} format
     * @param nodes        how many nodes were asked (1 unless Redlock)
     * @param agreeing     how many nodes hold the same value as the majority (0 when free); equals
     *                     {@code nodes} when they all agree
     * @param token        the value at the key on the agreeing nodes (a Coordis token, another client's
     *                     value, or for the legacy lock the expiry it stores); empty when free
     * @param holderId     the holder's id ({@code user@host:pid} by default); empty when free or held by a
     *                     client that records no holder (a plain {@code SET NX PX} by another library)
     * @param since        when the holder acquired it (the holder's wall clock); empty when unknown
     * @param heldFor      the server's clock minus {@code since}; empty when unknown
     * @param ttl          time left before the key expires (the smallest over agreeing nodes; for the legacy
     *                     lock the time until the expiry stored in its value); empty when free or never expiring
     * @param leaseTtl     the TTL the holder asked for, which its watchdog renews to every third of it; empty
     *                     when unknown (foreign or legacy holders, locks taken by older Coordis versions)
     * @param fencingToken the fencing number of the current acquisition (the largest over agreeing nodes);
     *                     empty when free or unknown
     * @param fenceCounter the fencing counter now (the largest over the nodes): the next acquisition gets a
     *                     higher number; empty when the lock was never taken by Coordis
     * @param waiters      Coordis clients subscribed for its release (waiting to acquire), over all nodes
     * @param flags        what deserves a look; see {@link Flag}
     * @param perNode      what each node holds, in the order the nodes were given
     * @param audit        forced unlocks recorded for this lock, newest first (read from the first node
     *                     that answered); empty for {@code ls}, which does not read them
     * @param readers      the read holds of a read-write lock while readers keep the key (its value is then
     *                     {@code coordis:readers}), the one lasting longest last; empty otherwise
     * @param writerWaiting how long a writer's mark that it waits for the readers lasts still (new readers wait
     *                     behind it); empty when no writer waits
     */
    public LockState {
        flags = Set.copyOf(flags);
        perNode = List.copyOf(perNode);
        audit = List.copyOf(audit);
        readers = List.copyOf(readers);
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.LOCK;
    }

    /** How a lock is kept. */
    public enum Mode {
        /** {@code SET NX PX} on one Redis (by Coordis or another client). */
        SINGLE_NODE,
        /** {@code SET NX PX} on a majority of N independent masters. */
        REDLOCK,
        /** The classic {@code SETNX} pattern: the value is the time at which the lock expires. */
        LEGACY
    }

    /** Conditions an operator may want to look at. */
    public enum Flag {
        /** Held by a client that records no holder details (its holder is unknown). */
        FOREIGN,
        /** The key never expires: if its holder died, only a person can free it. */
        NO_EXPIRY,
        /** Less than a quarter of the lease TTL left (less than 1 s when the lease TTL is unknown). */
        EXPIRING_SOON,
        /**
         * Less than 60% of the lease TTL left: a Coordis watchdog renews every third of it, so at least one
         * renewal is late (holder stalled, partitioned, or acquired without renewal). Needs a known lease TTL.
         */
        NOT_RENEWED,
        /** Redlock: not every node holds the majority's value (a node is down, lagging or holds another value). */
        NODES_DISAGREE
    }

    /**
     * Whether read holds keep the lock now (then {@link #readers()} lists them).
     *
     * @return {@code true} while readers hold it
     */
    public boolean heldByReaders() {
        return !readers.isEmpty();
    }

    /**
     * Whether somebody holds the lock now.
     *
     * @return {@code true} while held, by a writer or by readers
     */
    public boolean held() {
        return token.isPresent();
    }

    /**
     * The host part of a {@code user@host:pid} holder id.
     *
     * @return the host, or empty when free or the holder id has another form
     */
    public Optional<String> holderHost() {
        return holderId.flatMap(id -> {
            int at = id.indexOf('@');
            int colon = id.lastIndexOf(':');
            return at >= 0 && colon > at ? Optional.of(id.substring(at + 1, colon)) : Optional.empty();
        });
    }

    /**
     * The process id part of a {@code user@host:pid} holder id.
     *
     * @return the process id, or empty when free or the holder id has another form
     */
    public OptionalLong holderPid() {
        return holderId.map(id -> {
            int colon = id.lastIndexOf(':');
            if (colon < 0 || colon == id.length() - 1) {
                return OptionalLong.empty();
            }
            try {
                return OptionalLong.of(Long.parseLong(id.substring(colon + 1)));
            } catch (NumberFormatException e) {
                return OptionalLong.empty();
            }
        }).orElse(OptionalLong.empty());
    }

    /**
     * What one node holds for the lock.
     *
     * @param node         {@code host:port}
     * @param token        the value at the key; empty when the key is absent (or the node failed)
     * @param ttl          the key's time left; empty when absent or never expiring
     * @param holderId     holder details on this node, when they describe its value
     * @param fencingToken the fencing number those details record
     * @param fenceCounter the node's fencing counter
     * @param agrees       whether this node holds the majority's value
     * @param error        why the node could not be read (down, too slow, ...); empty when it answered
     */
    public record NodeState(String node, Optional<String> token, Optional<Duration> ttl, Optional<String> holderId,
                            OptionalLong fencingToken, OptionalLong fenceCounter, boolean agrees,
                            Optional<String> error) {
    }
}
