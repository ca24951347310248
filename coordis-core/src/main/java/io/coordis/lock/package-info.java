/**
 * Distributed locks on Redis: {@link io.coordis.lock.DistributedLock} (on one node, or Redlock over several
 * independent masters) hands out a {@link io.coordis.lock.Lease} with a fencing number, renewed while held and
 * reporting its loss; read-write locks, semaphores and a thread-owned {@link java.util.concurrent.locks.Lock} view
 * are built on the same leases. Ownership is the lease, not the thread. Make locks with
 * {@link io.coordis.Coordis#lock(String)}; every type here is thread-safe unless its documentation says otherwise.
 */
package io.coordis.lock;
