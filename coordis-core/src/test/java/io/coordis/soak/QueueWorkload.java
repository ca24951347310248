package io.coordis.soak;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.queue.CrashConsumer;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.Nemesis;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The reliable queue with crashing consumers: three consumer JVMs ({@link CrashConsumer}: report each batch as
 * processed, then ack it) are SIGKILLed every 2-5 s (the first after 3-5 s), preferably one holding messages, and
 * replaced once its messages are back; a producer keeps at most 20,000 messages waiting. Either up to
 * {@code messages} are pushed and the workload is done once all are processed ({@link QueueSoak}), or it pushes
 * until the run's end and then drains ({@link CombinedSoak}). With {@code redisKills}, it also kills -9 and restarts
 * Redis ({@code appendfsync always}) once a quarter of the messages went through, then every 30-60 s; otherwise the
 * run's nemesis does.
 *
 * <p>Checked: every message pushed was processed, 0 lost (pushed, never processed, in no list of the queue), 0 stuck
 * in processing lists, nothing left waiting or dead-lettered, nothing processed that was not pushed, no consumer
 * exiting on its own, and consumers were killed with messages in flight. Reported: lost and duplicates per million,
 * the recovery after each consumer kill against the documented bound of heartbeat TTL + 2 sweep intervals,
 * throughput.
 */
final class QueueWorkload implements Workload {
    private static final String QUEUE = "soak:queue";
    private static final int CONSUMERS = 3;
    private static final int SLOTS = 8;
    private static final Duration TTL = Duration.ofMillis(1000);
    private static final Duration SWEEP = Duration.ofMillis(250);
    private static final int BATCH = 500;
    private static final long MAX_WAITING = 20_000;
    private static final Duration GIVE_UP_QUIET = Duration.ofMinutes(2);

    private final RedisServer server;
    private final Path dir;
    private final int messages;
    private final boolean ownRedisKills;
    private final boolean pushAll;
    private final List<Path> reports = Collections.synchronizedList(new ArrayList<>());
    /** Consumers that exited without being killed: what each printed last. */
    private final List<String> crashes = new ArrayList<>();
    private final List<ChildJvm> consumers = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong waiting = new AtomicLong();
    private final AtomicInteger pushed = new AtomicInteger();
    private final Kills kills = new Kills();
    private Tally tally;
    private Watch watch;
    private Coordis coordis;
    private Thread producer;
    private int started;
    private volatile int redisKills;
    private volatile int seen;
    private volatile boolean done;
    private volatile boolean stopPushing;
    private long begin;

    /**
     * @param messages      how many to push at most (ids 0..messages-1)
     * @param pushAll       true: push all of them and be done once all are processed; false: push until the run's end
     * @param ownRedisKills true: kill -9 and restart Redis itself (no nemesis on it)
     */
    QueueWorkload(RedisServer server, Path dir, int messages, boolean pushAll, boolean ownRedisKills) {
        this.server = server;
        this.dir = dir;
        this.messages = messages;
        this.pushAll = pushAll;
        this.ownRedisKills = ownRedisKills;
    }

    @Override
    public String name() {
        return "queue";
    }

    @Override
    public void start() throws Exception {
        Files.createDirectories(dir);
        tally = new Tally(messages);
        watch = new Watch(server);
        coordis = TestClients.builder().url(server.uri()).commandTimeout(Duration.ofSeconds(1)).connect();
        ReliableQueue queue = coordis.reliableQueue(QUEUE);
        for (int i = 0; i < CONSUMERS; i++) {
            consumers.add(startConsumer(server));
        }
        begin = System.nanoTime();
        producer = new Thread(() -> produce(queue), "soak-producer");
        producer.setDaemon(true);
        producer.start();
    }

    @Override
    public boolean done() {
        return done;
    }

    @Override
    public String progress() {
        return String.format("%,d of %,d pushed messages processed, %d consumer kills, %d Redis kills", seen, pushed.get(),
                kills.count, redisKills);
    }

    /**
     * Kills consumers (and Redis, with {@code ownRedisKills}) until the run's end or, pushing all, until 95% went
     * through; then waits until every pushed message is processed and the queue is idle, or nothing moved for 2 min.
     */
    @Override
    public void disturb(long end, Random random) throws Exception {
        long nextKill = System.nanoTime() + millis(3000 + random.nextInt(2000)); // once the consumers are busy
        long nextRedisKill = Long.MAX_VALUE;
        long quietSince = System.nanoTime();
        int lastSeen = -1;
        boolean stallShown = false;
        while (true) {
            Thread.sleep(300);
            boolean over = !pushAll && System.nanoTime() >= end;
            if (over) {
                stopPushing = true;
            }
            seen = tally.update(reports);
            waiting.set(watch.number("LLEN", Prefixed.key(QUEUE)));
            boolean faultsDue = pushAll ? seen < messages * 0.95 : !over;
            if (ownRedisKills && redisKills == 0 && seen >= messages / 4) {
                nextRedisKill = Math.min(nextRedisKill, System.nanoTime());
            }
            if (ownRedisKills && faultsDue && System.nanoTime() >= nextRedisKill) {
                server.restart(Duration.ZERO); // kill -9, start again on the same AOF
                watch.reconnect();
                redisKills++;
                nextRedisKill = System.nanoTime() + millis(30_000 + random.nextInt(30_000));
            }
            replaceExited();
            if (faultsDue && System.nanoTime() >= nextKill && killOne(random)) {
                nextKill = System.nanoTime() + millis(2000 + random.nextInt(3000));
            }
            if (seen != lastSeen) {
                lastSeen = seen;
                quietSince = System.nanoTime();
            }
            long quiet = System.nanoTime() - quietSince;
            int target = pushAll ? messages : pushed.get();
            if (quiet > millis(30_000) && seen < target && !stallShown) {
                stallShown = true; // what the consumers were doing when progress stopped
                System.out.println("queue: no progress for 30 s at " + seen + " processed:\n" + describeStall());
            }
            boolean finished = !producer.isAlive() && (seen >= target || quiet > millis(30_000)) && idle(watch);
            if (finished || quiet > GIVE_UP_QUIET.toNanos()) {
                done = true;
                return;
            }
        }
    }

    @Override
    public void finish(SoakReport report, List<Nemesis.Event> faults) throws Exception {
        int messages = pushAll ? this.messages : pushed.get();
        long bound = TTL.plus(SWEEP.multipliedBy(2)).toNanos();
        producer.interrupt();
        producer.join(10_000);
        Thread.sleep(500); // the last reports are written before their acks
        int processed = Math.min(tally.update(reports), messages);
        Duration took = Duration.ofNanos(System.nanoTime() - begin);
        long stuck = stuck(watch);
        long left = watch.number("LLEN", Prefixed.key(QUEUE));
        long dead = watch.number("LLEN", Prefixed.derived(QUEUE, "dead"));
        long delayed = watch.number("ZCARD", Prefixed.derived(QUEUE, "delayed"));
        java.util.Set<Integer> inRedis = storedIds(watch);
        long lost = tally.missingAmong(pushed.get(), inRedis);
        long neverPushed = messages - pushed.get();
        String stall = processed < messages ? describeStall() : "";
        if (!stall.isEmpty()) {
            System.out.println("queue: stalled at " + processed + " of " + messages + " processed:\n" + stall);
        }

        report.figure("messages", SoakReport.count(messages) + (pushAll ? " (soak.messages)" : " (pushed until the end)"))
                .figure("duration / throughput", SoakReport.duration(took) + " / "
                        + SoakReport.count(Math.round(messages / Math.max(1e-3, took.toMillis() / 1000.0))) + " msg/s")
                .figure("consumer JVMs SIGKILLed", kills.count + " (" + kills.recovery.count() + " with messages in flight, "
                        + SoakReport.count(kills.inFlight) + " messages in flight in all)")
                .figure("Redis kill -9 + restart (appendfsync always)", ownRedisKills ? Integer.toString(redisKills) : "by the nemesis")
                .figure("pushed / processed", SoakReport.count(pushed.get()) + " / " + SoakReport.count(processed))
                .figure("lost", lost + " (" + SoakReport.rate(lost, messages, 1_000_000) + " per million)")
                .figure("stuck in processing lists / left waiting / delayed / dead-lettered",
                        stuck + " / " + left + " / " + delayed + " / " + dead)
                .figure("duplicates (processed again after a kill)", SoakReport.count(tally.duplicates) + " ("
                        + SoakReport.rate(tally.duplicates, messages, 1_000_000) + " per million)")
                .figure("processed ids nobody pushed", tally.phantoms)
                .figure("consumer JVMs that exited on their own (crashed; replaced)", crashes.size())
                .figure("acks answered other than ACKED (redelivered meanwhile)", tally.notAcked)
                .figure("consumer kill to its messages back in the queue", kills.recovery.summary())
                .figure("... of which heartbeat expiry", kills.heartbeatExpiry.summary())
                .figure("recoveries above heartbeat TTL + 2 sweeps (" + bound / 1_000_000 + " ms)",
                        kills.above(bound) + " of " + kills.recovery.count());
        report.check("every message pushed and processed (no stall)", neverPushed == 0 && processed >= messages)
                .check("0 lost", lost == 0)
                .check("0 stuck, nothing left waiting, delayed or dead-lettered", stuck == 0 && left == 0 && delayed == 0
                        && dead == 0)
                .check("nothing processed that was not pushed", tally.phantoms == 0)
                .check("no consumer crashed", crashes.isEmpty())
                .check("consumers and Redis were killed during the run, and a kill found messages in flight",
                        kills.recovery.count() > 0 && (redisKills > 0 || !ownRedisKills));
        report.note("Lost: pushed, never reported processed by a consumer, and not in Redis at the end. A consumer"
                + " reports a batch before acking it, so a kill between the two makes a duplicate, never a loss. The"
                + " recovery bound is asserted by ConsumerCrashIT; here it is reported.");
        if (lost > 0) {
            report.note("First lost ids: " + tally.firstMissingAmong(pushed.get(), inRedis, 20));
        }
        if (!crashes.isEmpty()) {
            report.note("Crashed consumers:\n\n```\n" + String.join("\n", crashes) + "\n```");
        }
        if (!stall.isEmpty()) {
            report.note("Stalled: " + SoakReport.count(processed) + " of " + SoakReport.count(messages)
                    + " processed when the run gave up. Consumers then:\n\n```\n" + stall + "\n```");
        }
    }

    @Override
    public void close() {
        stopPushing = true;
        if (producer != null) {
            producer.interrupt();
        }
        consumers.forEach(ChildJvm::close);
        if (coordis != null) {
            coordis.close();
        }
        if (watch != null) {
            watch.close();
        }
    }

    /** Consumer kills so far, and the recoveries measured after those that found messages in flight. */
    private static final class Kills {
        int count;
        long inFlight;
        final Samples recovery = new Samples();
        final Samples heartbeatExpiry = new Samples();
        private final List<Long> took = new ArrayList<>();

        long above(long nanos) {
            return took.stream().filter(t -> t > nanos).count();
        }
    }

    /**
     * SIGKILLs a consumer, preferably one that holds messages right now (so most kills exercise the recovery),
     * measures the recovery if it held any, then starts its replacement; false if no consumer has announced its id
     * yet. The replacement starts only once the recovery is measured: a JVM starting on two cores would starve the
     * survivors' sweep timers.
     */
    private boolean killOne(Random random) throws InterruptedException {
        int victim = random.nextInt(consumers.size());
        for (int k = 0; k < consumers.size(); k++) {
            int candidate = (victim + k) % consumers.size();
            String cid = consumerId(consumers.get(candidate));
            if (cid != null && held(watch, cid) > 0) {
                victim = candidate;
                break;
            }
        }
        String id = consumerId(consumers.get(victim));
        if (id == null) {
            return false;
        }
        consumers.get(victim).close(); // SIGKILL
        long killedAt = System.nanoTime();
        kills.count++;
        long held = held(watch, id);
        if (held > 0) {
            kills.inFlight += held;
            long[] took = awaitRecovery(watch, id, killedAt);
            kills.recovery.add(took[0]);
            kills.heartbeatExpiry.add(took[1]);
            kills.took.add(took[0]);
        }
        consumers.set(victim, startConsumer(server));
        return true;
    }

    /** Replaces each consumer that exited without being killed, keeping what it printed for the report. */
    private void replaceExited() {
        for (int i = 0; i < consumers.size(); i++) {
            ChildJvm c = consumers.get(i);
            if (!c.isAlive()) {
                String described = c.describe();
                crashes.add(described);
                System.out.println("queue: a consumer exited on its own, replaced:\n" + described);
                c.close();
                consumers.set(i, startConsumer(server));
            }
        }
    }

    private ChildJvm startConsumer(RedisServer server) {
        Path file = dir.resolve("consumer-" + (++started) + ".txt");
        reports.add(file);
        return ChildJvm.start("consumer-" + started, CrashConsumer.class, List.of(server.address(), QUEUE,
                Long.toString(TTL.toMillis()), Long.toString(SWEEP.toMillis()), file.toString()));
    }

    private void produce(ReliableQueue queue) {
        try {
            for (int from = 0; from < messages && !stopPushing; from += BATCH) {
                while (waiting.get() > MAX_WAITING && !stopPushing) {
                    Thread.sleep(20);
                }
                List<byte[]> payloads = new ArrayList<>();
                for (int m = from; m < Math.min(messages, from + BATCH); m++) {
                    payloads.add(Integer.toString(m).getBytes(StandardCharsets.UTF_8));
                }
                while (true) {
                    try {
                        queue.pushAll(payloads);
                        waiting.addAndGet(payloads.size());
                        pushed.addAndGet(payloads.size());
                        break;
                    } catch (CoordisException e) {
                        Thread.sleep(50); // reply lost or Redis restarting: push again (a duplicate at worst)
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The message ids stored anywhere in the queue's keys: waiting, in processing lists, delayed, dead. */
    private static java.util.Set<Integer> storedIds(Watch watch) {
        java.util.Set<Integer> ids = new java.util.HashSet<>();
        List<String> lists = new ArrayList<>(watch.keys(Prefixed.derived(QUEUE, "proc:*")));
        lists.add(Prefixed.key(QUEUE));
        lists.add(Prefixed.derived(QUEUE, "dead"));
        for (String key : lists) {
            for (Object e : (List<?>) watch.command("LRANGE", key, "0", "-1")) {
                addId(ids, e);
            }
        }
        for (Object e : (List<?>) watch.command("ZRANGE", Prefixed.derived(QUEUE, "delayed"), "0", "-1")) {
            addId(ids, e);
        }
        return ids;
    }

    private static void addId(java.util.Set<Integer> ids, Object element) {
        try {
            ids.add(Integer.parseInt(Watch.text(element)));
        } catch (NumberFormatException e) {
            // not one of ours
        }
    }

    /** Each consumer's state, the tail of its report file and of its stderr, and what Redis holds. */
    private String describeStall() {
        StringBuilder b = new StringBuilder();
        b.append("waiting ").append(watch.number("LLEN", Prefixed.key(QUEUE))).append(", processing lists ")
                .append(watch.keys(Prefixed.derived(QUEUE, "proc:*")).size()).append(", heartbeats ")
                .append(watch.keys(Prefixed.derived(QUEUE, "hb:*"))).append('\n');
        for (ChildJvm c : consumers) {
            b.append(c.describe()).append('\n');
        }
        for (Path report : reports.subList(Math.max(0, reports.size() - consumers.size()), reports.size())) {
            try {
                List<String> lines = java.nio.file.Files.readAllLines(report, StandardCharsets.UTF_8);
                b.append(report.getFileName()).append(" tail:\n");
                for (String l : lines.subList(Math.max(0, lines.size() - 8), lines.size())) {
                    b.append("  ").append(l.length() > 200 ? l.substring(0, 200) + "..." : l).append('\n');
                }
            } catch (java.io.IOException e) {
                b.append(report.getFileName()).append(": cannot read (").append(e.getMessage()).append(")\n");
            }
        }
        return b.toString();
    }

    private static String consumerId(ChildJvm child) {
        return child.lines().stream().filter(l -> l.startsWith("ID ")).map(l -> l.substring(3)).findFirst().orElse(null);
    }

    private static long held(Watch watch, String id) {
        long held = 0;
        for (int slot = 0; slot < SLOTS; slot++) {
            held += watch.number("LLEN", Prefixed.derived(QUEUE, "proc:" + id + ":" + slot));
        }
        return held;
    }

    /** Kill to empty slots, and kill to the heartbeat gone (ns); polls every 10 ms, at most 30 s. */
    private static long[] awaitRecovery(Watch watch, String id, long killedAt) throws InterruptedException {
        long limit = killedAt + TimeUnit.SECONDS.toNanos(30);
        long heartbeatGone = -1;
        while (System.nanoTime() < limit) {
            if (heartbeatGone < 0 && watch.number("EXISTS", Prefixed.derived(QUEUE, "hb:" + id)) == 0) {
                heartbeatGone = System.nanoTime();
            }
            if (held(watch, id) == 0) {
                break;
            }
            Thread.sleep(10);
        }
        long now = System.nanoTime();
        return new long[] {now - killedAt, (heartbeatGone < 0 ? now : heartbeatGone) - killedAt};
    }

    private static boolean idle(Watch watch) {
        return watch.number("LLEN", Prefixed.key(QUEUE)) == 0 && stuck(watch) == 0
                && watch.number("ZCARD", Prefixed.derived(QUEUE, "delayed")) == 0;
    }

    private static long stuck(Watch watch) {
        long n = 0;
        for (String key : watch.keys(Prefixed.derived(QUEUE, "proc:*"))) {
            n += watch.number("LLEN", key);
        }
        return n;
    }

    private static long millis(long ms) {
        return TimeUnit.MILLISECONDS.toNanos(ms);
    }
}
