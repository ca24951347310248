/**
 * A count-down latch shared by every process on one Redis: {@link io.coordis.latch.CountDownLatch} opens when its
 * count reaches zero, wakes its waiters through pub/sub, stays open for waiters that come later, and leaves Redis a
 * while after it opened or last changed. Thread-safe.
 */
package io.coordis.latch;
