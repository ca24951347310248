package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.NodeVote;
import io.coordis.internal.Named;
import io.coordis.internal.Timer;
import io.coordis.internal.lease.ReleaseWaiter;
import io.coordis.internal.redis.ChannelRegistration;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.ForcedUnlock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What every lock shares: its name, key and options, and acquiring through the client's {@link Contention}
 * (first in the local queue, then tries at Redis paced by the lock's own {@link Contention.Pacer}). Each lock
 * says how one try, the holder read and the forced unlock go at Redis.
 */
abstract class ContendedLock extends Named implements DistributedLock, Contention.Contender {
    final LockKeys keys;
    final LockOptions options;
    final Contention contention;
    final Timer timer;
    /** The nodes' answers to the last try; stays empty for a lock that does not report them. */
    volatile List<NodeVote> lastVotes = List.of();

    ContendedLock(String kind, String name, String key, LockOptions options, Contention contention, Timer timer) {
        super(kind, name, key);
        this.keys = LockKeys.of(key);
        this.options = options;
        this.contention = contention;
        this.timer = timer;
    }

    @Override
    public List<NodeVote> lastVotes() {
        return lastVotes;
    }

    @Override
    public Optional<Lease> tryAcquire() {
        return contention.tryAcquire(place(), this);
    }

    @Override
    public Optional<Lease> acquire(Duration wait) throws InterruptedException {
        return contention.acquire(place(), wait, this);
    }

    @Override
    public Lease acquire() throws InterruptedException {
        return contention.acquire(place(), this);
    }

    /** Where an acquire lines up in the client's {@link LocalQueue}: behind every other acquire of the same key. */
    String place() {
        return key;
    }

    /**
     * Listens for releases on the lock's channel on {@code node}, so that a release between the busy answer and the
     * next try is not missed: the first pause ends once Redis confirmed the subscription (the caller tries again now
     * that it listens); later pauses last until a release is announced or the holder's TTL runs out, plus jitter.
     * Closing the client ends the pause too, and the next try fails naming the closed connection. Registers without
     * waiting, except to open the node's pub/sub connection on its first use.
     */
    Contention.Pacer releasePacer(Node node) {
        return releasePacer(node, List.of(keys.released()), timer);
    }

    /** {@link #releasePacer(Node)} listening on every one of {@code channels}: a release on any of them ends a pause. */
    static Contention.Pacer releasePacer(Node node, List<String> channels, Timer timer) {
        ReleaseWaiter release = new ReleaseWaiter();
        ChannelRegistration subscription;
        try {
            subscription = node.subscribe(channels, false, release);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordisException(node.address(), "interrupted while opening the pub/sub connection", e);
        }
        return new Contention.Pacer() {
            private boolean first = true;

            @Override
            public CompletableFuture<Boolean> pause(Contention.Attempt last, long maxNanos) {
                if (first) {
                    first = false;
                    return subscription.ready().thenApply(v -> true);
                }
                return release.next(timer, last.holderMillis(), maxNanos).thenApply(v -> true);
            }

            @Override
            public void close() {
                subscription.close();
            }
        };
    }

    @Override
    public CompletableFuture<Optional<Lease>> tryAcquireAsync() {
        return contention.tryAcquireAsync(place(), this);
    }

    @Override
    public CompletableFuture<Optional<Lease>> acquireAsync(Duration wait) {
        return contention.acquireAsync(place(), wait, this);
    }

    @Override
    public CompletableFuture<Lease> acquireAsync() {
        return contention.acquireAsync(place(), this);
    }

    @Override
    public void abandon(Lease lease) {
        ((HeldLease) lease).abandon(this::releaseInBackground);
    }

    /** Lets go of the lock held under {@code token}, not waiting for Redis; a token that holds nothing changes nothing. */
    abstract void releaseInBackground(String token);

    @Override
    public Optional<ForcedUnlock> forceUnlock(String reason) {
        return force("", reason);
    }

    @Override
    public Optional<ForcedUnlock> forceUnlock(LockHolder holder, String reason) {
        return force(Objects.requireNonNull(holder, "holder").token(), reason);
    }

    /** Opens the lock if its token is {@code expected} (empty: whoever holds it). */
    abstract Optional<ForcedUnlock> force(String expected, String reason);

    /**
     * One try's {@code reply} from {@code node}, limited to its command timeout and to half the TTL, so that a slow
     * answer leaves time to use the lease: past that, it fails naming the node. Does not block.
     */
    <T> CompletableFuture<T> tryReply(Node node, CompletableFuture<T> reply) {
        // in nanoseconds: Duration.dividedBy goes through BigDecimal, and this runs on every try
        Duration half = Duration.ofNanos(options.ttl().toNanos() / 2);
        // every command a node sends has the command timeout as its deadline already: only a shorter one needs a second
        return half.compareTo(node.commandTimeout()) < 0 ? node.within(reply, half) : reply;
    }

    /** The failure of a try as the Coordis exception it stands for, naming {@code node}. */
    static CoordisException failure(Node node, Throwable f) {
        Throwable cause = f instanceof CompletionException && f.getCause() != null ? f.getCause() : f;
        return cause instanceof CoordisException c ? c : node.translate(cause);
    }

    /**
     * {@link #failure}, kept as the try's one vote in {@link #lastVotes}: {@code TIMEOUT} when {@code node} did not
     * answer in time, else {@code ERROR}.
     */
    CoordisException failedTry(Node node, Throwable f) {
        CoordisException e = failure(node, f);
        lastVotes = List.of(new NodeVote(node.address(),
                e instanceof NodeUnavailableException n && n.timedOut() ? NodeVote.Vote.TIMEOUT : NodeVote.Vote.ERROR,
                e.getMessage()));
        return e;
    }

    /** Runs the holder-reading {@code script} on {@code node}: its reply, at least one element long. */
    List<?> readHolder(Node node, LuaScript script, List<String> keys, List<String> args) {
        try {
            return Replies.list(node.await(node.eval(script, keys, args), node.commandTimeout()),
                    1, script, node.address());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordisException(node.address(), "interrupted while reading the holder of '" + key + "'", e);
        }
    }
}
