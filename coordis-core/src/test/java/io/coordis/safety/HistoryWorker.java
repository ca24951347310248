package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.history.History;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client process that records its history (JSON lines) for the checkers, in the real mode or in a broken
 * variant the checkers must flag.
 *
 * <p>Arguments: {@code host:port mode object-name history-file process-name [threads seconds ttl-ms]}.
 * <ul>
 *   <li>lock modes ({@code threads} threads for {@code seconds}, TTL {@code ttl-ms}, no watchdog; one hold in
 *       three lasts 1.5 × TTL, the others a fifth of it): {@code lock} (Coordis), {@code lock-no-nx} (raw
 *       {@code SET PX} without NX), {@code lock-plain-del} ({@code SET NX PX}, released with a plain
 *       {@code DEL} that may remove another holder's key), {@code lock-no-fence} (Coordis, but the token
 *       recorded is a counter local to this process);</li>
 *   <li>queue modes (consume until killed; 2 ms of work per message): {@code queue} (Coordis reliable queue,
 *       heartbeat 300 ms, sweeps every 100 ms), {@code queue-rpop} (plain {@code RPOP}: a message in hand
 *       when the process dies is gone).</li>
 * </ul>
 * Prints {@code READY} once working, and {@code DONE} when a lock run ends.
 */
public final class HistoryWorker {
    private HistoryWorker() {
    }

    public static void main(String[] args) throws Exception {
        String address = args[0];
        String mode = args[1];
        String name = args[2];
        try (History history = History.open(Path.of(args[3]), args[4])) {
            if (mode.startsWith("lock")) {
                locks(address, mode, name, history, Integer.parseInt(args[5]), Integer.parseInt(args[6]),
                        Duration.ofMillis(Long.parseLong(args[7])));
                System.out.println("DONE");
            } else {
                consume(address, mode, name, history);
            }
        }
    }

    private static void locks(String address, String mode, String name, History history, int threads, int seconds,
                              Duration ttl) throws Exception {
        AtomicLong localTokens = new AtomicLong();
        try (Coordis coordis = TestClients.connect("redis://" + address)) {
            // the run lasts its seconds from when the client is connected, however slowly this JVM started
            long until = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
            DistributedLock lock = coordis.lock(name, LockOptions.defaults().withTtl(ttl).withAutoRenew(false));
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    try (RespClient raw = raw(address)) {
                        while (System.nanoTime() < until) {
                            // one attempt per invoke: the successful attempt's invoke is when its TTL began at the latest
                            history.invoke("acquire", name, "", -1);
                            long token;
                            Lease lease = null;
                            if (mode.equals("lock") || mode.equals("lock-no-fence")) {
                                Optional<Lease> got = lock.tryAcquire();
                                if (got.isEmpty()) {
                                    history.fail("acquire", name, "", -1);
                                    Thread.sleep(2);
                                    continue;
                                }
                                lease = got.get();
                                token = mode.equals("lock") ? lease.fencingToken() : localTokens.incrementAndGet();
                            } else {
                                String me = Thread.currentThread().getName() + "-" + System.nanoTime();
                                String key = Prefixed.key(name);
                                Object set = mode.equals("lock-no-nx")
                                        ? raw.command("SET", key, me, "PX", Long.toString(ttl.toMillis()))
                                        : raw.command("SET", key, me, "NX", "PX", Long.toString(ttl.toMillis()));
                                if (!"OK".equals(set)) {
                                    history.fail("acquire", name, "", -1);
                                    Thread.sleep(2);
                                    continue;
                                }
                                token = localTokens.incrementAndGet();
                            }
                            history.ok("acquire", name, "", token);
                            boolean longHold = ThreadLocalRandom.current().nextInt(3) == 0;
                            Thread.sleep(longHold ? ttl.toMillis() * 3 / 2 : ttl.toMillis() / 5);
                            history.invoke("release", name, "", token);
                            if (lease != null) {
                                lease.release();
                            } else {
                                raw.command("DEL", Prefixed.key(name));
                            }
                            history.ok("release", name, "", token);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "w" + t);
                workers.add(w);
                w.start();
            }
            System.out.println("READY");
            for (Thread w : workers) {
                w.join();
            }
        }
    }

    private static void consume(String address, String mode, String name, History history) throws Exception {
        if (mode.equals("queue-rpop")) {
            try (RespClient raw = raw(address)) {
                System.out.println("READY");
                while (true) {
                    history.invoke("dequeue", name, "", -1);
                    Object got = raw.command("RPOP", Prefixed.key(name));
                    if (got == null) {
                        history.fail("dequeue", name, "", -1);
                        Thread.sleep(5);
                        continue;
                    }
                    String id = got instanceof byte[] b ? new String(b) : got.toString();
                    history.ok("dequeue", name, id, -1);
                    Thread.sleep(2);
                    history.invoke("ack", name, id, -1);
                    history.ok("ack", name, id, -1); // nothing to acknowledge: the message left Redis already
                }
            }
        }
        QueueOptions options = QueueOptions.defaults().withHeartbeatTtl(Duration.ofMillis(300))
                .withSweepInterval(Duration.ofMillis(100));
        try (Coordis coordis = TestClients.connect("redis://" + address)) {
            ReliableQueue queue = coordis.reliableQueue(name, options);
            try (Consumer consumer = queue.consumer()) {
                System.out.println("READY");
                while (true) {
                    history.invoke("dequeue", name, "", -1);
                    Optional<Delivery> got = consumer.take(Duration.ofMillis(200));
                    if (got.isEmpty()) {
                        history.fail("dequeue", name, "", -1);
                        continue;
                    }
                    String id = got.get().text();
                    history.ok("dequeue", name, id, -1);
                    Thread.sleep(2);
                    history.invoke("ack", name, id, -1);
                    io.coordis.Outcome outcome = got.get().ack();
                    if (outcome == io.coordis.Outcome.ACKED) {
                        history.ok("ack", name, id, -1);
                    } else {
                        history.info("ack", name, id + " " + outcome, -1);
                    }
                }
            }
        }
    }

    private static RespClient raw(String address) {
        int colon = address.lastIndexOf(':');
        return RespClient.connect(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
    }
}
