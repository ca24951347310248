package io.coordis.example.modulepath;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;

import java.time.Duration;
import java.util.Optional;

/** Takes one lock on the Redis at {@code args[0]} and prints its fencing number; exits 1 if the lock is busy. */
public final class LockOnce {
    private LockOnce() {
    }

    public static void main(String[] args) throws InterruptedException {
        try (Coordis coordis = Coordis.connect(args[0])) {
            DistributedLock lock = coordis.lock("consumer:module-path");
            Optional<Lease> acquired = lock.acquire(Duration.ofSeconds(5));
            if (acquired.isEmpty()) {
                System.out.println("busy");
                System.exit(1);
            }
            try (Lease lease = acquired.get()) {
                System.out.println("locked on the module path, module " + LockOnce.class.getModule().getName()
                        + " reading " + Coordis.class.getModule().getName() + ", fencing number "
                        + lease.fencingToken());
            }
        }
    }
}
