package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Child-JVM main for {@code PausedHolderIT}: acquires one lock with renewal on and reports, on stdout,
 * what it believes about its lease:
 * <pre>
 *   ACQUIRED fence=F token=T
 *   LOST fence=F held=B         when lease.lost() completes (B = isHeld() at that moment)
 *   NOT_HELD fence=F            when isHeld() first turns false (polled every 5 ms)
 *   RELEASED result=B           after the command RELEASE on stdin
 * </pre>
 * Exits when stdin closes.
 *
 * <p>Arguments: {@code <redis uri> <lock name> <ttl ms>}.
 */
public final class HolderProcess {
    private HolderProcess() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String name = args[1];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[2]));
        try (Coordis coordis = TestClients.connect(uri)) {
            Lease lease = coordis.lock(name, LockOptions.defaults().withTtl(ttl)).acquire(Duration.ofSeconds(10))
                    .orElseThrow(() -> new IllegalStateException("lock " + name + " stayed busy"));
            long fence = lease.fencingToken();
            ContenderProcess.say("ACQUIRED fence=" + fence + " token=" + lease.token());
            lease.lost().thenAccept(l -> ContenderProcess.say("LOST fence=" + fence + " held=" + l.isHeld()));
            Thread poller = new Thread(() -> {
                while (lease.isHeld()) {
                    try {
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                ContenderProcess.say("NOT_HELD fence=" + fence);
            }, "held-poller");
            poller.setDaemon(true);
            poller.start();

            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("RELEASE")) {
                    ContenderProcess.say("RELEASED result=" + lease.release());
                }
            }
        }
        Runtime.getRuntime().halt(0);
    }
}
