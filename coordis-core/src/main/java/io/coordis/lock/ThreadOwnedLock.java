package io.coordis.lock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * {@link OwnedLock} over a {@link DistributedLock}: owned by the thread that locked it, reentrant for that
 * thread, unlocked when the hold count returns to zero. The underlying lease renews itself while held.
 */
final class ThreadOwnedLock implements OwnedLock {
    private final DistributedLock lock;
    private volatile Thread owner;
    private int holds;
    private Lease lease;

    ThreadOwnedLock(DistributedLock lock) {
        this.lock = lock;
    }

    @Override
    public void lock() {
        lock(lock);
    }

    @Override
    public void lock(DistributedLock via) {
        checkSameKey(via);
        if (reenter()) {
            return;
        }
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    own(via.acquire());
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (!reenter()) {
            own(lock.acquire());
        }
    }

    @Override
    public boolean tryLock() {
        if (reenter()) {
            return true;
        }
        Optional<Lease> l = lock.tryAcquire();
        l.ifPresent(this::own);
        return l.isPresent();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(lock, Duration.ofNanos(Math.max(0, unit.toNanos(time))));
    }

    @Override
    public boolean tryLock(DistributedLock via, Duration wait) throws InterruptedException {
        checkSameKey(via);
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        if (reenter()) {
            return true;
        }
        Optional<Lease> l = via.acquire(wait);
        l.ifPresent(this::own);
        return l.isPresent();
    }

    @Override
    public void unlock() {
        checkedUnlock();
    }

    @Override
    public boolean checkedUnlock() {
        if (owner != Thread.currentThread()) {
            throw new IllegalMonitorStateException("lock '" + lock.name() + "' is not held by thread "
                    + Thread.currentThread().getName());
        }
        if (--holds > 0) {
            return true;
        }
        Lease l = lease;
        lease = null;
        owner = null;
        return l.release();
    }

    @Override
    public Optional<Lease> lease() {
        return owner == Thread.currentThread() ? Optional.of(lease) : Optional.empty();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("conditions are not supported on distributed lock '" + lock.name()
                + "'; use the signal primitives to wait for state changes");
    }

    private void checkSameKey(DistributedLock via) {
        if (!via.key().equals(lock.key())) {
            throw new IllegalArgumentException("lock '" + lock.key() + "' cannot be acquired through another key's "
                    + "lock ('" + via.key() + "'); make it with the same name and key prefix");
        }
    }

    private boolean reenter() {
        if (owner == Thread.currentThread()) {
            holds++;
            return true;
        }
        return false;
    }

    private void own(Lease acquired) {
        lease = acquired;
        holds = 1;
        owner = Thread.currentThread();
    }

    @Override
    public String toString() {
        Thread o = owner;
        return "ThreadOwnedLock[" + lock.key() + (o == null ? ", unlocked" : ", held by " + o.getName()) + "]";
    }
}
