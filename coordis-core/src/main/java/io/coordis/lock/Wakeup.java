package io.coordis.lock;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** A one-waiter doorbell: {@link #ring()} from any thread (a pub/sub callback) ends the current or next wait. */
final class Wakeup {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition rung = lock.newCondition();
    private boolean pending;

    void ring() {
        lock.lock();
        try {
            pending = true;
            rung.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until rung or {@code nanos} pass; consumes the ring. */
    void await(long nanos) throws InterruptedException {
        lock.lockInterruptibly();
        try {
            long left = nanos;
            while (!pending && left > 0) {
                left = rung.awaitNanos(left);
            }
            pending = false;
        } finally {
            lock.unlock();
        }
    }
}
