package io.coordis.lock;

import java.util.List;
import java.util.Map;

/**
 * One acquisition of a {@link MultiLock}: every name held under one token and one lease, renewed together, lost
 * together and released together. Each name got a fencing number of its own, from the same counter as a plain
 * {@link DistributedLock} on that name, so a resource guarded by one name checks that name's number.
 *
 * <p>As a {@link Lease}: {@link #name()} is the names joined by commas, {@link #key()} and {@link #fencingToken()}
 * are the first name's (in the order given), {@link #lost()} completes when any name is found lost, and
 * {@link #release()} frees every name still held under the token.
 *
 * <p>Thread-safe; may be released from any thread.
 */
public interface MultiLease extends Lease {

    /**
     * The names as the caller gave them, in that order.
     *
     * @return the names
     */
    List<String> names();

    /**
     * The fencing number of each name for this acquisition, in the order the names were given.
     *
     * @return name → fencing number
     */
    Map<String, Long> fencingTokens();
}
