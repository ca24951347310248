package io.coordis.internal.lock;

import io.coordis.NodeVote;
import io.coordis.lock.Lease;
import io.coordis.lock.MultiLease;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * A {@link MultiLease} on one {@link HeldLease}, whose session renews, loses and releases every name at once through
 * {@link MultiNodeLock}; this adds the names and their fencing numbers. Thread-safe.
 */
final class HeldMultiLease implements MultiLease {
    private final HeldLease lease;
    private final List<String> names;
    private final Map<String, Long> fences;

    HeldMultiLease(HeldLease lease, List<String> names, Map<String, Long> fences) {
        this.lease = lease;
        this.names = names;
        this.fences = fences;
    }

    /** The lease underneath, which the lock lets go of when an acquire gave up meanwhile. */
    HeldLease lease() {
        return lease;
    }

    @Override
    public List<String> names() {
        return names;
    }

    @Override
    public Map<String, Long> fencingTokens() {
        return fences;
    }

    @Override
    public String name() {
        return lease.name();
    }

    @Override
    public String key() {
        return lease.key();
    }

    @Override
    public long fencingToken() {
        return lease.fencingToken();
    }

    @Override
    public String token() {
        return lease.token();
    }

    @Override
    public List<NodeVote> votes() {
        return lease.votes();
    }

    @Override
    public boolean isHeld() {
        return lease.isHeld();
    }

    @Override
    public Duration remainingValidity() {
        return lease.remainingValidity();
    }

    @Override
    public CompletionStage<Lease> lost() {
        return lease.lost().thenApply(l -> this);
    }

    @Override
    public boolean extend(Duration ttl) {
        return lease.extend(ttl);
    }

    @Override
    public boolean release() {
        return lease.release();
    }

    @Override
    public boolean releaseAfter(Duration keepFor) {
        return lease.releaseAfter(keepFor);
    }

    @Override
    public void close() {
        lease.close();
    }

    @Override
    public String toString() {
        return "MultiLease[" + names + ", fences " + fences + ", " + (isHeld() ? "held" : "not held") + "]";
    }
}
