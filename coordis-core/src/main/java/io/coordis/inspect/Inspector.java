package io.coordis.inspect;

import io.coordis.AccessDeniedException;
import io.coordis.CoordisException;
import io.coordis.WrongTypeException;

import java.util.List;
import java.util.Optional;

/**
 * Reads what Coordis objects exist and their state — locks, elections, queues, semaphores, signals, rate limiters and
 * count-down latches — for operators
 * and monitoring: the library side of {@code coordis ls} and {@code coordis inspect}. Obtained from
 * {@code Coordis.inspector()}; reads only, never changes a key.
 *
 * <h2>How objects are found: SCAN, not a registry</h2>
 * Listing walks the keyspace with {@code SCAN} (with {@code MATCH}, a {@code TYPE} filter and
 * {@code COUNT 1000}; never {@code KEYS}), and lists channels with {@code PUBSUB CHANNELS}. A registry of
 * names that Coordis writes on every acquire would be cheaper to list, but it cannot show what other clients
 * made — a lock taken with a plain {@code SET k v NX PX} by redis-py, a queue fed by a plain {@code LPUSH} —
 * and those are exactly the objects an operator needs to see when two languages share a lock; it would also
 * go stale when a holder dies. SCAN costs a walk over the whole keyspace in small steps, which is cheap on
 * a Redis kept for coordination (as it should be) and slow on a large data Redis. Each object found is then
 * read with one read-only script (one atomic step per object and node).
 *
 * <p>What is shown as what: a string key is told to be a lock, a legacy lock or an election by the details
 * Coordis keeps beside it; a short foreign value with a TTL is taken
 * for another client's lock with an unknown holder — a guess, as a cached value looks the same). Lists that
 * are not Coordis' own derived keys are queues; a queue with registered consumers is shown even while empty.
 * Channels with subscribers and latched events are signals. A rate limiter or a latch is found by its one key
 * ({@code {name}:rate}, {@code {name}:latch}). Coordis' own derived keys and channels
 * ({@code {name}:fence}, {@code {name}:released}, ...) are never shown as objects of their own. Counter
 * elections ({@code INCR} + {@code EXPIRE}) keep no details and look like a lock whose value is a number.
 *
 * <p>Nodes: with several nodes (Redlock), locks are read on every node, with each node's view in
 * {@link LockState#perNode()}; a node that fails is reported there, and the call fails only when every node
 * fails. Elections, queues, semaphores, signals, rate limiters and latches live on one Redis and are read on the first
 * node.
 *
 * <p>Tenants: an ACL user limited to a key prefix still sees every key name in {@code SCAN} and every
 * channel in {@code PUBSUB CHANNELS} (Redis does not filter those by the user's patterns), but may not read
 * the keys. Listings leave out the objects this user may not read (logged at debug), so one tenant's
 * {@code ls} shows its own locks, elections and queues only; the channel list still names other tenants'
 * channels with subscribers. Asking for one object by name that the user may not read throws
 * {@link AccessDeniedException}.
 *
 * <p>Implementations are thread-safe. Each method blocks for a few round trips (at most the command timeout
 * each) and throws
 * {@link CoordisException} subclasses when Redis fails; {@link InterruptedException} when interrupted.
 */
public interface Inspector {
    /** How many audit entries {@link #lock} reads, newest first (as many as a lock keeps). */
    int AUDIT_ENTRIES = 100;

    /**
     * The objects of {@code kind} whose names match {@code glob}, by name: what {@link #locks}, {@link #elections},
     * {@link #queues}, {@link #semaphores}, {@link #signals}, {@link #rateLimiters} or {@link #latches} lists, for a
     * kind chosen at run time.
     *
     * @param kind the kind to list
     * @param glob a Redis glob over the names
     * @return the objects found, by name, each of {@code kind}
     * @throws InterruptedException when interrupted while waiting for a node
     * @throws IllegalArgumentException when {@code glob} is malformed (see {@link Glob#of})
     */
    List<ObjectState> list(ObjectKind kind, String glob) throws InterruptedException;

    /**
     * Everything about the object {@code name} of {@code kind}: what {@link #lock}, {@link #election},
     * {@link #queue}, {@link #semaphore}, {@link #signal}, {@link #rateLimiter} or {@link #latch} reads, for a kind
     * chosen at run time.
     *
     * @param kind the kind of object
     * @param name its name, its Redis key (for a signal its channel)
     * @return the object; empty when nothing is known about {@code name} (never for a signal)
     * @throws InterruptedException when interrupted while waiting for a node
     * @throws WrongTypeException when the name holds another kind of object
     * @throws IllegalArgumentException when the name is blank
     */
    Optional<ObjectState> read(ObjectKind kind, String name) throws InterruptedException;

    /**
     * The held locks whose names match {@code glob}, by name. Audit entries are not read here (see
     * {@link #lock}).
     *
     * @param glob a Redis glob over the lock names
     * @return the held locks, by name
     * @throws InterruptedException when interrupted while waiting for a node
     * @throws IllegalArgumentException when {@code glob} is malformed (see {@link Glob#of})
     */
    List<LockState> locks(String glob) throws InterruptedException;

    /**
     * Everything about the lock {@code name}: holder, TTL, fencing number and counter, waiters, each node's
     * view, and the last {@value #AUDIT_ENTRIES} forced unlocks. A free lock that Coordis has used (it has a
     * fencing counter or audit entries) is returned with {@link LockState#held()} false. Asked by name, any
     * string key is read as a lock, also one that {@link #locks} leaves out as not lock-like (no TTL).
     *
     * @param name the lock's name, its Redis key
     * @throws InterruptedException when interrupted while waiting for a node
     * @return empty when nothing is known about {@code name} on any node
     * @throws WrongTypeException when the key holds another Redis type, or is an election
     * @throws IllegalArgumentException when the name is blank
     */
    Optional<LockState> lock(String name) throws InterruptedException;

    /**
     * The elections with a leader whose names match {@code glob}, by name (read on the first node).
     *
     * @param glob a Redis glob over the election names
     * @return the elections with a leader, by name
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    List<ElectionState> elections(String glob) throws InterruptedException;

    /**
     * The election {@code name}: its leader, term, TTL and term counter; a leaderless election that has a
     * term counter is returned with an empty leader.
     *
     * @param name the election's name, its Redis key
     * @throws InterruptedException when interrupted while waiting for Redis
     * @return empty when nothing is known about {@code name}
     * @throws WrongTypeException when the key holds another Redis type, or is a lock
     * @throws IllegalArgumentException when the name is blank
     */
    Optional<ElectionState> election(String name) throws InterruptedException;

    /**
     * The queues whose names match {@code glob}, by name: every list that is not one of Coordis' derived
     * keys, and every queue with registered consumers (read on the first node).
     *
     * @param glob a Redis glob over the queue names
     * @return the queues, by name
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    List<QueueState> queues(String glob) throws InterruptedException;

    /**
     * The queue {@code name}: depth, ages, in-flight and overdue messages, dead letters, and each consumer.
     *
     * @param name the queue's name, its list key
     * @throws InterruptedException when interrupted while waiting for Redis
     * @return empty when the list is absent and no consumer, dead letter or delayed message is known
     * @throws WrongTypeException when the key holds another Redis type than a list
     * @throws IllegalArgumentException when the name is blank
     */
    Optional<QueueState> queue(String name) throws InterruptedException;

    /**
     * The semaphores whose names match {@code glob}, by name: every name with a stored permit count (read on the
     * first node). Idle semaphores are listed too, with no holders.
     *
     * @param glob a Redis glob over the semaphore names
     * @return the semaphores, by name
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    List<SemaphoreState> semaphores(String glob) throws InterruptedException;

    /**
     * The semaphore {@code name}: its permit count, holders (permits, holder, fencing number, TTL left), fencing
     * counter and waiters in line.
     *
     * @param name the semaphore's name, its holders' key
     * @throws InterruptedException when interrupted while waiting for Redis
     * @return empty when nothing is stored for {@code name}
     * @throws WrongTypeException when the key holds another Redis type than a sorted set
     * @throws IllegalArgumentException when the name is blank
     */
    Optional<SemaphoreState> semaphore(String name) throws InterruptedException;

    /**
     * The signals whose names match {@code glob}, by name: channels with at least one subscriber (except
     * Coordis' own lock and election channels) and latched events still kept (read on the first node).
     *
     * @param glob a Redis glob over the channel and event names
     * @return the signals, by name
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    List<SignalState> signals(String glob) throws InterruptedException;

    /**
     * The signal channel {@code name}: its subscribers and its latched event, if any. Every channel exists in
     * this sense (with 0 subscribers).
     *
     * @param name the channel's name
     * @return the channel's state
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws IllegalArgumentException when the name is blank
     */
    SignalState signal(String name) throws InterruptedException;

    /**
     * The rate limiters whose names match {@code glob}, by name: every name whose key {@code {name}:rate} is stored
     * (read on the first node). A limiter idle long enough to be back at its full burst has no key and is not
     * listed; members made with {@code forKey} are listed each under its own name.
     *
     * @param glob a Redis glob over the limiter names
     * @return the rate limiters, by name
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    List<RateLimiterState> rateLimiters(String glob) throws InterruptedException;

    /**
     * The rate limiter {@code name}: its stored theoretical arrival time and how long until it is idle again, by
     * Redis's clock, and its key's TTL. Its limit is not stored, so it is not shown.
     *
     * @param name the limiter's name (its key is {@code {name}:rate})
     * @return empty when no key is stored: the limiter is idle, or was never used
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws WrongTypeException when the key holds another Redis type, or a string that is no arrival time
     * @throws IllegalArgumentException when the name is blank
     */
    Optional<RateLimiterState> rateLimiter(String name) throws InterruptedException;

    /**
     * The count-down latches whose names match {@code glob}, by name: every name whose key {@code {name}:latch} is
     * stored, open ones too until their key expires (read on the first node).
     *
     * @param glob a Redis glob over the latch names
     * @return the latches, by name
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws IllegalArgumentException when {@code glob} is malformed
     */
    List<LatchState> latches(String glob) throws InterruptedException;

    /**
     * The count-down latch {@code name}: its count, whether it is open, its key's TTL and the clients waiting for
     * its opening.
     *
     * @param name the latch's name (its key is {@code {name}:latch})
     * @return empty when no key is stored: never used, or expired
     * @throws InterruptedException when interrupted while waiting for Redis
     * @throws WrongTypeException when the key holds another Redis type, or a string that is no count
     * @throws IllegalArgumentException when the name is blank
     */
    Optional<LatchState> latch(String name) throws InterruptedException;
}
