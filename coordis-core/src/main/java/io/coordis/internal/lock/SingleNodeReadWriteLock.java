package io.coordis.internal.lock;

import io.coordis.lock.DistributedLock;
import io.coordis.lock.LockHolder;
import io.coordis.lock.ReadWriteLock;
import java.util.List;

/**
 * A read-write lock on one Redis node: its write side is the plain {@link SingleNodeLock} on the name (whose
 * {@code acquire.lua} marks a writer waiting for readers), its read side a {@link ReaderSetLock}.
 */
final class SingleNodeReadWriteLock implements ReadWriteLock {
    private final ReaderSetLock read;
    private final DistributedLock write;

    SingleNodeReadWriteLock(ReaderSetLock read, DistributedLock write) {
        this.read = read;
        this.write = write;
    }

    @Override
    public String name() {
        return read.name();
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public List<LockHolder> readers() {
        return read.readers();
    }

    @Override
    public String toString() {
        return "ReadWriteLock[" + read.key() + "]";
    }
}
