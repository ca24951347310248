package io.coordis.soak;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Signal;
import io.coordis.signal.SignalListener;
import io.coordis.signal.Subscription;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedClient;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.history.History;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * What keeps running through the failovers of a replicated deployment ({@link Failovers}: Sentinel or Redis
 * Cluster), each part on a client of its own connected with the deployment's URL (command timeout 1 s): three threads taking a lock (TTL 1 s)
 * and writing to a fenced resource with their fencing numbers; a producer pushing numbered messages to a
 * reliable queue (10 every 10 ms, pushed again until Redis acknowledges them) and two consumers taking and
 * acking them; a sender publishing 100 signals a second to a listener, both recording histories.
 */
final class ReplicatedWorkload implements AutoCloseable {
    /** The lock and the queue share a hash tag, so that on a cluster every failover of the queue's master hits both. */
    static final String LOCK = "{soak:replicated}:lock";
    static final String QUEUE = "{soak:replicated}:queue";
    private static final String CHANNEL = "soak:replicated:signal";
    private static final int LOCKERS = 3;
    private static final int CONSUMERS = 2;
    private static final int BATCH = 10;

    private final List<Coordis> clients = new ArrayList<>();
    private final List<Thread> lockers = new ArrayList<>();
    private final List<Thread> consumers = new ArrayList<>();
    private final List<Thread> producers = new ArrayList<>();
    private final Samples acquireLatency = new Samples();
    private final Deliveries deliveries = new Deliveries();
    private final AtomicInteger pushed = new AtomicInteger();
    private final AtomicLong lastAcquire = new AtomicLong(-1);
    private final AtomicLong lastDelivery = new AtomicLong(-1);
    private final AtomicLong lastHeard = new AtomicLong(-1);
    private final List<Long> gaps = Collections.synchronizedList(new ArrayList<>());
    private final FencedResource resource;
    private final History sender;
    private final History listener;
    private final Map<String, Long> figures = new LinkedHashMap<>();
    private Subscription subscription;
    private volatile boolean working = true;
    private volatile boolean consuming = true;
    private Set<Integer> leftInRedis = Set.of();

    private ReplicatedWorkload(FencedResource resource, History sender, History listener) {
        this.resource = resource;
        this.sender = sender;
        this.listener = listener;
    }

    /** Connects the clients and starts every part; returns once the listener is subscribed. */
    static ReplicatedWorkload start(String sentinelUri, FencedResource resource, History sender, History listener)
            throws InterruptedException {
        ReplicatedWorkload w = new ReplicatedWorkload(resource, sender, listener);
        try {
            w.begin(sentinelUri);
        } catch (RuntimeException | InterruptedException e) {
            w.close();
            throw e;
        }
        return w;
    }

    private void begin(String uri) throws InterruptedException {
        Coordis lockClient = connect(uri);
        Coordis queueClient = connect(uri);
        Coordis signalClient = connect(uri);
        Coordis listenClient = connect(uri);
        subscription = listenClient.signals().listen(List.of(CHANNEL), new SignalListener() {
            @Override
            public void onSignal(Signal signal) {
                lastHeard.set(System.nanoTime());
                listener.ok("receive", CHANNEL, signal.data(), -1);
            }

            @Override
            public void onGap(String node) {
                gaps.add(System.nanoTime());
                listener.info("gap", CHANNEL, node, -1);
            }
        });
        listener.ok("subscribed", CHANNEL, "", -1);
        DistributedLock lock = lockClient.lock(LOCK, LockOptions.defaults().withTtl(Duration.ofSeconds(1)));
        for (int t = 0; t < LOCKERS; t++) {
            String name = "w" + t;
            lockers.add(thread("soak-lock-" + name, () -> lockLoop(lock, name)));
        }
        ReliableQueue queue = queueClient.reliableQueue(QUEUE, QueueOptions.defaults()
                .withHeartbeatTtl(Duration.ofSeconds(1)).withSweepInterval(Duration.ofMillis(250)));
        for (int c = 0; c < CONSUMERS; c++) {
            consumers.add(thread("soak-consumer-" + c, () -> consume(queue)));
        }
        producers.add(thread("soak-producer", () -> produce(queue)));
        producers.add(thread("soak-signal-sender", () -> send(signalClient)));
    }

    private Coordis connect(String uri) {
        Coordis c = TestClients.builder().url(uri).commandTimeout(Duration.ofSeconds(1)).connect();
        clients.add(c);
        return c;
    }

    private static Thread thread(String name, InterruptibleBody body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private interface InterruptibleBody {
        void run() throws InterruptedException;
    }

    private void lockLoop(DistributedLock lock, String name) throws InterruptedException {
        try (FencedClient fenced = FencedClient.connect(resource.address(), name)) {
            while (working) {
                long start = System.nanoTime();
                try {
                    Optional<Lease> got = lock.acquire(Duration.ofSeconds(2));
                    if (got.isEmpty()) {
                        continue;
                    }
                    acquireLatency.add(System.nanoTime() - start);
                    lastAcquire.set(System.nanoTime());
                    try (Lease lease = got.get()) {
                        long token = lease.fencingToken();
                        fenced.enter(token);
                        try {
                            fenced.write(token);
                            Thread.sleep(1);
                            fenced.write(token);
                        } finally {
                            fenced.exit(token);
                        }
                    }
                } catch (CoordisException e) {
                    Thread.sleep(20); // failing over: try again
                }
            }
        }
    }

    private void produce(ReliableQueue queue) throws InterruptedException {
        while (working) {
            int from = pushed.get();
            List<byte[]> batch = new ArrayList<>();
            for (int id = from; id < from + BATCH; id++) {
                batch.add(Integer.toString(id).getBytes(StandardCharsets.UTF_8));
            }
            while (true) {
                try {
                    queue.pushAll(batch);
                    break;
                } catch (CoordisException e) {
                    Thread.sleep(50); // reply lost or no master: push again (a duplicate at worst)
                }
            }
            pushed.addAndGet(BATCH);
            Thread.sleep(10);
        }
    }

    private void consume(ReliableQueue queue) throws InterruptedException {
        Consumer consumer = null;
        while (consumer == null) {
            try {
                consumer = queue.consumer();
            } catch (CoordisException e) {
                Thread.sleep(100);
            }
        }
        try {
            while (consuming) {
                List<Delivery> batch;
                try {
                    batch = consumer.take(8, Duration.ofMillis(200));
                } catch (CoordisException e) {
                    Thread.sleep(50);
                    continue;
                }
                if (batch.isEmpty()) {
                    continue;
                }
                for (Delivery d : batch) {
                    deliveries.add(Integer.parseInt(d.text()));
                }
                lastDelivery.set(System.nanoTime());
                while (true) {
                    try {
                        consumer.ack(batch);
                        break;
                    } catch (CoordisException e) {
                        // an unsettled delivery keeps its slot: ack again until Redis answers (once the sweepers gave
                        // the message back, the answer is that it was not ours any more, and the slot is free)
                        Thread.sleep(50);
                    }
                }
            }
        } finally {
            try {
                consumer.close();
            } catch (CoordisException e) {
                // its heartbeat expires on its own
            }
        }
    }

    private void send(Coordis client) throws InterruptedException {
        for (long i = 0; working; i++) {
            String id = "s-" + i;
            sender.invoke("notify", CHANNEL, id, -1);
            try {
                client.signals().signal(CHANNEL, id);
                sender.ok("notify", CHANNEL, id, -1);
            } catch (CoordisException e) {
                sender.info("notify", CHANNEL, id, -1); // published or not: unknown
            }
            Thread.sleep(10);
        }
    }

    /** Messages pushed and acknowledged by Redis so far (ids 0 to this, exclusive). */
    int pushed() {
        return pushed.get();
    }

    Samples acquireLatency() {
        return acquireLatency;
    }

    long gaps() {
        return gaps.size();
    }

    long gapsBetween(long fromNanos, long toNanos) {
        synchronized (gaps) {
            return gaps.stream().filter(g -> g >= fromNanos && g < toNanos).count();
        }
    }

    /**
     * When each part first worked after {@code nanos}: {lock acquired, fenced write accepted, message delivered,
     * signal heard}, each -1 if not within {@code bound}. A lock can be acquired before the resource accepts its
     * writes again: after a failover that lost fencing numbers, the resource refuses the repeated ones as stale
     * until the promoted master's counter has passed the highest it accepted. Polls every 5 ms, so all but the
     * accepted write are late by at most that.
     */
    long[] awaitResumedAfter(long nanos, Duration bound) throws InterruptedException {
        long[] at = {-1, -1, -1, -1};
        AtomicLong[] last = {lastAcquire, null, lastDelivery, lastHeard};
        long deadline = nanos + bound.toNanos();
        while (System.nanoTime() < deadline && Arrays.stream(at).anyMatch(t -> t < 0)) {
            if (at[1] < 0) {
                at[1] = resource.firstAcceptAfter(nanos);
            }
            for (int i : new int[] {0, 2, 3}) {
                if (at[i] < 0 && last[i].get() > nanos) {
                    at[i] = last[i].get();
                }
            }
            Thread.sleep(5);
        }
        return at;
    }

    /**
     * Stops the lock, the producer and the sender; lets the consumers take what is left (until every pushed id
     * was delivered, or nothing waits or is in flight and nothing came for 10 s, at most {@code bound}); records
     * what is still stored; then stops the consumers and the listener.
     */
    void stopAndDrain(Duration bound, Supplier<RedisServer> queueMaster) throws InterruptedException {
        working = false;
        join(lockers);
        join(producers);
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            if (deliveries.distinct() >= pushed.get()) {
                break;
            }
            boolean quiet = System.nanoTime() - lastDelivery.get() > Duration.ofSeconds(10).toNanos();
            if (quiet && stored(queueMaster.get()).isEmpty()) {
                break;
            }
            Thread.sleep(200);
        }
        RedisServer master = queueMaster.get();
        leftInRedis = stored(master);
        long processing = 0;
        for (Object key : (List<?>) master.command("KEYS", Prefixed.derived(QUEUE, "proc:*"))) {
            processing += (Long) master.command("LLEN", Watch.text(key));
        }
        figures.put("stuck", processing);
        figures.put("left", (Long) master.command("LLEN", Prefixed.key(QUEUE))
                + (Long) master.command("ZCARD", Prefixed.derived(QUEUE, "delayed"))
                + (Long) master.command("LLEN", Prefixed.derived(QUEUE, "dead")));
        consuming = false;
        join(consumers);
        Thread.sleep(1000); // the last signals arrive
        listener.ok("unsubscribed", CHANNEL, "", -1);
        subscription.close();
        figures.put("duplicates", deliveries.duplicates());
        figures.put("phantoms", deliveries.phantoms(pushed.get()));
    }

    /** Duplicates, phantoms (delivered ids never pushed), left (waiting, delayed, dead) and stuck (in flight). */
    Map<String, Long> queueFigures() {
        return Map.copyOf(figures);
    }

    /** Ids pushed and acknowledged by Redis that no consumer took and that are not stored any more. */
    List<Integer> lostIds() {
        List<Integer> lost = new ArrayList<>();
        for (int id = 0; id < pushed.get(); id++) {
            if (!deliveries.seen(id) && !leftInRedis.contains(id)) {
                lost.add(id);
            }
        }
        return lost;
    }

    /** The message ids stored in the queue, its processing lists, delayed set and dead letters. */
    private static Set<Integer> stored(RedisServer master) {
        Set<Integer> ids = new HashSet<>();
        List<String> lists = new ArrayList<>(List.of(Prefixed.key(QUEUE), Prefixed.derived(QUEUE, "dead")));
        for (Object key : (List<?>) master.command("KEYS", Prefixed.derived(QUEUE, "proc:*"))) {
            lists.add(Watch.text(key));
        }
        for (String list : lists) {
            for (Object v : (List<?>) master.command("LRANGE", list, "0", "-1")) {
                parse(Watch.text(v)).ifPresent(ids::add);
            }
        }
        for (Object v : (List<?>) master.command("HVALS", Prefixed.derived(QUEUE, "delayed:data"))) {
            parse(Watch.text(v)).ifPresent(ids::add);
        }
        return ids;
    }

    /** The id in a stored message: the payload itself, or the digits at its end when stored with an envelope. */
    private static Optional<Integer> parse(String stored) {
        int end = stored.length();
        int start = end;
        while (start > 0 && Character.isDigit(stored.charAt(start - 1))) {
            start--;
        }
        return start < end && end - start < 10 ? Optional.of(Integer.parseInt(stored.substring(start, end))) : Optional.empty();
    }

    private static void join(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            t.join(10_000);
        }
    }

    @Override
    public void close() {
        working = false;
        consuming = false;
        for (List<Thread> ts : List.of(lockers, producers, consumers)) {
            ts.forEach(Thread::interrupt);
        }
        if (subscription != null) {
            try {
                subscription.close();
            } catch (RuntimeException ignored) {
                // closing anyway
            }
        }
        for (Coordis c : clients) {
            c.close();
        }
    }

    /** How often each message id was delivered. Thread-safe. */
    private static final class Deliveries {
        private int[] counts = new int[1 << 16];
        private int distinct;
        private long duplicates;
        private long phantoms;

        synchronized void add(int id) {
            if (id < 0) {
                phantoms++;
                return;
            }
            if (id >= counts.length) {
                counts = Arrays.copyOf(counts, Math.max(counts.length * 2, id + 1));
            }
            if (++counts[id] == 1) {
                distinct++;
            } else {
                duplicates++;
            }
        }

        synchronized int distinct() {
            return distinct;
        }

        synchronized long duplicates() {
            return duplicates;
        }

        synchronized boolean seen(int id) {
            return id < counts.length && counts[id] > 0;
        }

        /** Ids delivered that are not below {@code pushed}, plus negative ones. */
        synchronized long phantoms(int pushed) {
            long n = phantoms;
            for (int id = pushed; id < counts.length; id++) {
                n += counts[id] > 0 ? 1 : 0;
            }
            return n;
        }
    }
}
