package io.coordis;

import io.coordis.doctor.Doctor;
import io.coordis.election.CounterElection;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.inspect.Inspector;
import io.coordis.latch.CountDownLatch;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.LockOptions;
import io.coordis.lock.MultiLock;
import io.coordis.lock.ReadWriteLock;
import io.coordis.lock.Semaphore;
import io.coordis.queue.Queue;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.signal.Signals;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A Coordis client: the connections to Redis that every primitive made from it shares. Per node (one, or each Redlock
 * master) these are a command connection, one for queue payloads once a queue is used, a pub/sub connection once
 * something listens, and connections lent from a pool to writes that wait for replicas; blocking pops and a reliable
 * consumer's slots hold connections of their own while they wait. Create one client per process (or per Redis
 * deployment) and close it on shutdown; it is thread-safe.
 *
 * <pre>{@code
 * try (Coordis coordis = Coordis.connect("redis://127.0.0.1:6379")) {
 *     DistributedLock lock = coordis.lock("orders:42");
 *     try (Lease lease = lock.acquire(Duration.ofSeconds(5)).orElseThrow()) {
 *         // ... write to the resource, passing lease.fencingToken() along
 *     }
 * }
 * }</pre>
 *
 * <p>The URLs it takes (one node, TLS, Sentinel, Redis Cluster, or three or more independent masters for Redlock)
 * and what works on a cluster: see the {@linkplain io.coordis package documentation}.
 */
public final class Coordis implements AutoCloseable {
    /** Default upper bound on one Redis round trip. */
    public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(2);

    private final Engines engines;

    /** A client with the settings {@code b}, whose combination of URLs is checked first. */
    Coordis(ClientSettings b) {
        b.checkCombination();
        this.engines = new Engines(b);
    }

    /**
     * Connects with default settings.
     *
     * @param url the Redis URL, in one of the forms the {@linkplain io.coordis package documentation} lists
     * @return a connected client; close it when done
     * @throws IllegalArgumentException when the URL is malformed
     * @throws CoordisException         when Redis is unreachable or refuses the credentials (within the
     *                                  command timeout)
     */
    public static Coordis connect(String url) {
        return builder().url(url).connect();
    }

    /**
     * Connects to one node, or for three or more URLs to independent masters for Redlock.
     *
     * @param urls one URL, or three or more of independent masters
     * @return a connected client; close it when done
     * @throws IllegalArgumentException when a URL is malformed, or two URLs are given
     */
    public static Coordis connect(List<String> urls) {
        return builder().urls(urls).connect();
    }

    /**
     * Settings for a client: the URLs, then everything else with its default.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A lock on the resource {@code name} with default options; the Redis key is the name itself, after the
     * client's {@link Builder#keyPrefix key prefix} if it has one.
     *
     * @param name the resource name
     * @return the lock; it holds nothing until acquired
     */
    public DistributedLock lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    /**
     * A lock on the resource {@code name} with the given options: on the Redis node, or a Redlock lock
     * over all nodes when this client has several.
     *
     * @param name    the resource name
     * @param options the lock's options
     * @return the lock; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     */
    public DistributedLock lock(String name, LockOptions options) {
        return engines.locks.lock(name, engines.replicated(options));
    }

    /**
     * {@link #multiLock(List, LockOptions)} with default options.
     *
     * @param names the resource names
     * @return the multi-lock
     */
    public MultiLock multiLock(String... names) {
        return multiLock(Arrays.asList(Objects.requireNonNull(names, "multi-lock names must not be null")));
    }

    /**
     * {@link #multiLock(List, LockOptions)} with default options.
     *
     * @param names the resource names
     * @return the multi-lock
     */
    public MultiLock multiLock(List<String> names) {
        return multiLock(names, LockOptions.defaults());
    }

    /**
     * A multi-lock on {@code names}: all or none, one lease, one fencing number per name, each name an ordinary lock.
     *
     * @param names   the resource names, at least one and at most 100, none twice
     * @param options the options of every name; a replica wait is refused
     * @return the multi-lock; it holds nothing until acquired
     * @throws IllegalArgumentException for no names, too many, one twice, a bad name, or a replica wait
     * @throws IllegalStateException    on a client of several Redlock masters (take a lock per name instead)
     */
    public MultiLock multiLock(List<String> names, LockOptions options) {
        return engines.locks.multiLock(names, options);
    }

    /**
     * A read-write lock on the resource {@code name} with default options: many readers or one writer, writers not
     * starved; its write side is {@link #lock(String)} on the same name.
     *
     * @param name the resource name
     * @return the read-write lock; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client has several Redlock masters (read-write locks use one node)
     */
    public ReadWriteLock readWriteLock(String name) {
        return readWriteLock(name, LockOptions.defaults());
    }

    /**
     * A read-write lock on the resource {@code name} with the given options (TTL, holder id, tokens), used by both
     * sides.
     *
     * @param name    the resource name
     * @param options the options of both sides
     * @return the read-write lock; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client has several Redlock masters (read-write locks use one node)
     */
    public ReadWriteLock readWriteLock(String name, LockOptions options) {
        return engines.locks.readWriteLock(name, options);
    }

    /**
     * A semaphore on {@code name} with default lock options for its permits (TTL 30 s, renewed while held); see
     * {@link #semaphore(String, int, LockOptions)}.
     *
     * @param name    the semaphore's name
     * @param permits the permit count written by the first acquisition when none is stored
     * @return the semaphore; it holds nothing until acquired
     */
    public Semaphore semaphore(String name, int permits) {
        return semaphore(name, permits, LockOptions.defaults());
    }

    /**
     * A semaphore on {@code name}: at most {@code permits} permits held at once across every client, each a lease
     * with the options' TTL, renewal and holder id. The count is stored in Redis: {@code permits} is written by
     * the first acquisition when none is stored yet, and otherwise the stored one applies
     * ({@link Semaphore#setPermits} changes it). Its keys derive from the name after this client's key prefix, in
     * one hash slot.
     *
     * @param name    the semaphore's name
     * @param permits the permit count written by the first acquisition when none is stored
     * @param options the options of every permit
     * @return the semaphore; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or too long, or {@code permits} is below 1
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public Semaphore semaphore(String name, int permits, LockOptions options) {
        return engines.locks.semaphore(name, permits, options);
    }

    /**
     * A lock on {@code name} in the format of the classic {@code SETNX} pattern (the value is the time at
     * which it expires), for sharing it with programs that still lock that way. Weaker than
     * {@link #lock(String, LockOptions)}: it needs synchronised clocks.
     *
     * @param name    the resource name, the key of the lock
     * @param options the lock's options; the token label is ignored
     * @return the lock; it holds nothing until acquired
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     */
    public DistributedLock legacyLock(String name, LockOptions options) {
        return engines.locks.legacy(name, options);
    }

    /**
     * Signal and wait (pub/sub), unicast signals and latched events on this client's connections:
     * published on the (first) master, heard on it and on the replicas given to
     * {@link Builder#replicaUrls}. Shares this client's connections; thread-safe.
     *
     * @return the signals of this client
     */
    public Signals signals() {
        return engines.signals;
    }

    /**
     * A candidate in the lease election {@code name} (the Redis key is the name itself) with default
     * options: TTL 15 s, a fresh candidate id. See {@link LeaderElection}.
     *
     * @param name the election's name
     * @return a new candidate; it does not campaign until asked
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public LeaderElection election(String name) {
        return election(name, ElectionOptions.defaults());
    }

    /**
     * A candidate in the lease election {@code name} with the given options. Each call makes a new
     * candidate; make one per process and election.
     *
     * @param name    the election's name
     * @param options the candidate's options
     * @return a new candidate; it does not campaign until asked
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public LeaderElection election(String name, ElectionOptions options) {
        return engines.elections.election(name, engines.replicated(options));
    }

    /**
     * A candidate in the classic incumbent-favouring counter election on {@code key}
     * ({@code INCR key}, {@code EXPIRE key <term>}), which programs running the classic
     * {@code master()} function on the same key take part in; with the local term check built in. See
     * {@link CounterElection}.
     *
     * @param term the expiry the leader refreshes, whole seconds (the classic code uses 20 s)
     * @param key  the counter's key, after this client's key prefix if it has one
     * @return a new candidate; it does not campaign until asked
     * @throws IllegalArgumentException when the key is blank or longer than 1,024 bytes in UTF-8, or the term is
     *                                  not a whole number of seconds
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public CounterElection counterElection(String key, Duration term) {
        return engines.elections.counterElection(key, term);
    }

    /**
     * The plain list {@code name} as a queue ({@code LPUSH} / {@code RPOP}, no envelope), with default
     * options; see {@link Queue}.
     *
     * @param name the list's key
     * @return the queue
     * @throws IllegalArgumentException when the name is empty or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public Queue queue(String name) {
        return queue(name, QueueOptions.defaults());
    }

    /**
     * Like {@link #queue(String)} with {@code options} (order, maximum message size).
     *
     * @param name    the list's key
     * @param options the queue's options
     * @return the queue
     */
    public Queue queue(String name, QueueOptions options) {
        return engines.queues().plain(name, engines.replicated(options));
    }

    /**
     * A reliable queue on the list {@code name} with default options; see {@link ReliableQueue}.
     *
     * @param name the list's key
     * @return the queue; nothing consumes until a consumer is started
     */
    public ReliableQueue reliableQueue(String name) {
        return reliableQueue(name, QueueOptions.defaults());
    }

    /**
     * A reliable (at-least-once) queue on the list {@code name}: consumers hold messages in processing
     * slots guarded by heartbeats, so nothing is lost when a consumer dies; see {@link ReliableQueue}.
     *
     * @param name    the list's key
     * @param options the queue's options
     * @return the queue; nothing consumes until a consumer is started
     * @throws IllegalArgumentException when the name is empty or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public ReliableQueue reliableQueue(String name, QueueOptions options) {
        return engines.queues().reliable(name, engines.replicated(options));
    }

    /**
     * A count-down latch on {@code name} (see {@link CountDownLatch}) on the (first) master: the first use stores it
     * with {@code count} when none is stored (a handle with another count does not reset a stored latch), and its
     * key expires {@code expireAfter} after the latch opens or last changed.
     *
     * @param name        the latch's name; its key derives from it after this client's key prefix
     * @param count       the count a first use stores, 1 to {@link CountDownLatch#MAX_COUNT}
     * @param expireAfter how long the key outlives the opening or the last change, 1 ms to 30 days
     * @return the latch; nothing is stored until it is used
     * @throws IllegalArgumentException when the name is blank or too long, or the count or the expiry out of range
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public CountDownLatch countDownLatch(String name, long count, Duration expireAfter) {
        return engines.latches().latch(name, count, expireAfter);
    }

    /**
     * A rate limiter on {@code name} granting at most {@code limit} to all its clients together, on Redis's clock;
     * see {@link RateLimiter}.
     *
     * @param name  the limiter's name (its key is {@code {name}:rate} after the key prefix)
     * @param limit the rate, e.g. {@code RateLimit.parse("10/1s")}
     * @return the limiter
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters (Redlock)
     */
    public RateLimiter rateLimiter(String name, RateLimit limit) {
        return engines.rateLimiters().limiter(name, limit);
    }

    /**
     * The prefix put before every key and channel name of this client ({@link Builder#keyPrefix}); empty for none.
     *
     * @return the key prefix, or the empty string
     */
    public String keyPrefix() {
        return engines.namespace.prefix();
    }

    /**
     * Read-only views of the objects on this client's Redis (every {@link io.coordis.inspect.ObjectKind}; Redlock:
     * locks on every node), as {@code coordis ls} and {@code coordis inspect} show them. Thread-safe.
     *
     * @return the inspector of this client
     */
    public Inspector inspector() {
        return engines.inspector;
    }

    /**
     * Checks the servers this client talks to (every node for Redlock) for what Coordis needs: version, role,
     * eviction policy, persistence, the ACL user's permissions (with a {@link Builder#keyPrefix key prefix}: also on
     * the keys and channels under it), clock skew. See {@link Doctor}.
     *
     * @return the doctor of this client
     */
    public Doctor doctor() {
        return engines.doctor();
    }

    /**
     * The Redis node this client talks to, as {@code host:port}; several are separated by commas.
     *
     * @return the address, {@code host:port}
     */
    public String address() {
        return engines.address();
    }

    /**
     * Closes the connections; leases still open stop renewing and expire by their TTL. Callers waiting for a
     * busy lock of this client stop waiting at once and get a {@link CoordisException} naming the closed
     * connection.
     */
    @Override
    public void close() {
        engines.close();
    }

    /**
     * Settings for a {@link Coordis} client, from {@link #builder()}. Each setter refuses a bad value at once,
     * naming it; {@link #connect()} checks how the URLs combine. Not thread-safe.
     */
    public static final class Builder extends ClientSettings {
        private Builder() {
        }
    }
}
