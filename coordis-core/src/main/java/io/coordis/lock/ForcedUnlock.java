package io.coordis.lock;

import java.util.Objects;
import java.util.Optional;

/**
 * What an operator's {@link DistributedLock#forceUnlock(String) forced unlock} removed.
 *
 * @param key          the lock key
 * @param token        the value the lock held (a foreign client's own value for a foreign lock)
 * @param holderId     the holder's id ({@code user@host:pid} by default), empty for a foreign holder
 * @param fencingToken the fencing counter after the bump: higher than the forced holder's number and lower
 *                     than the next holder's (for Redlock, the largest over the nodes)
 * @param forcedNodes  on how many nodes the lock was removed (1 on a single node)
 * @param nodes        how many nodes the lock lives on (1 on a single node); fewer forced nodes than a
 *                     majority means the lock may still count as held until it expires on the others
 */
public record ForcedUnlock(String key, String token, Optional<String> holderId, long fencingToken,
                           int forcedNodes, int nodes) {

    /**
     * Checks that the key, token and holder id are given.
     *
     * @param key          the lock key
     * @param token        the value the lock held (a foreign client's own value for a foreign lock)
     * @param holderId     the holder's id ({@code user@host:pid} by default), empty for a foreign holder
     * @param fencingToken the fencing counter after the bump: higher than the forced holder's number and lower
     *                     than the next holder's (for Redlock, the largest over the nodes)
     * @param forcedNodes  on how many nodes the lock was removed (1 on a single node)
     * @param nodes        how many nodes the lock lives on (1 on a single node); fewer forced nodes than a
     *                     majority means the lock may still count as held until it expires on the others
     * @throws NullPointerException when {@code key}, {@code token} or {@code holderId} is null
     */
    public ForcedUnlock {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(holderId, "holderId");
    }

    /**
     * One line for people: {@code alice@web1:42 removed from 'orders:42' (fence now 8)}.
     *
     * @return the description
     */
    public String describe() {
        return holderId.orElse("a foreign client") + " removed from '" + key + "' (fence now " + fencingToken
                + (nodes > 1 ? ", on " + forcedNodes + " of " + nodes + " nodes" : "") + ")";
    }
}
