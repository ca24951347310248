package io.coordis;

import io.coordis.lock.LockLayout;
import io.coordis.testkit.Prefixed;

/**
 * The counters fencing numbers and election terms come from, for tests that read or change them: under the test
 * run's key prefix, the one of the name's hash slot ({@link LockLayout#fenceKey}).
 */
public final class Counters {
    private Counters() {
    }

    /** The fencing (and term) counter that the lock, semaphore or election {@code name} takes its numbers from. */
    public static String of(String name) {
        return LockLayout.fenceKey(Prefixed.prefix(), Prefixed.key(name));
    }
}
