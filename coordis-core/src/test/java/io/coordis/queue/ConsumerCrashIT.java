package io.coordis.queue;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.history.Histories;
import io.coordis.testkit.history.History;
import io.coordis.testkit.history.QueueChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No loss under consumer crashes: consumer JVMs are SIGKILLed at random and restarted while a producer
 * pushes; a checker counts every message reported processed. With {@code appendfsync always}: 0 lost, 0
 * stuck in processing slots, duplicates counted and printed, every recovery within heartbeat TTL + 2 sweep
 * intervals — a replacement consumer JVM starts only once the recovery is measured, so its start-up does not
 * starve the survivors' sweep timers on a 2-core machine, and a kill waits until every consumer is up, so
 * survivors are there to sweep. The producer and every consumer JVM also write
 * their histories, and {@link QueueChecker} judges them as a set: every message pushed, none lost, none
 * stuck, none delivered that nobody pushed, agreeing with the count. The negative control runs the same
 * checks against a Redis without persistence that is killed mid-run, and both must see the loss.
 */
class ConsumerCrashIT {
    private static final String QUEUE = "crash";
    private static final int CONSUMERS = 3;
    private static final Duration TTL = Duration.ofMillis(1000);
    private static final Duration SWEEP = Duration.ofMillis(250);
    private static final int MAX_KILLS = 12;

    private static volatile String diagnostics = "";
    private static final java.util.concurrent.atomic.AtomicInteger STARTED = new java.util.concurrent.atomic.AtomicInteger();

    @TempDir
    Path dir;

    private record Result(int messages, int processed, int lost, int duplicates, List<Long> duplicateIds,
                          long stuck, long depth, long deadLetters, List<Long> lostIds, List<Long> recoveryMillis,
                          int kills, long inFlightAtKill, QueueChecker.Result history) {
        long maxRecovery() {
            return recoveryMillis.stream().mapToLong(x -> x).max().orElse(0);
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void noMessageLostWhileConsumersAreKilledAtRandom() throws Exception {
        try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always").start()) {
            Result r = run(server, 100_000, false, true);
            System.out.println("consumer crashes: " + r);
            System.out.println("recoveries split as heartbeat expiry + sweep (ms): " + SPLITS);
            if (r.lost() > 0) {
                System.out.println(diagnostics);
                Path copy = Path.of("/tmp/queue-crash-aof-" + System.currentTimeMillis());
                try (var files = Files.walk(server.dir())) {
                    for (Path f : files.toList()) {
                        Path target = copy.resolve(server.dir().relativize(f).toString());
                        if (Files.isDirectory(f)) {
                            Files.createDirectories(target);
                        } else {
                            Files.copy(f, target);
                        }
                    }
                }
                System.out.println("redis files copied to " + copy);
            }
            assertThat(r.kills()).as("consumers were killed").isGreaterThanOrEqualTo(4);
            assertThat(r.recoveryMillis()).as("kills that found messages in flight; " + r).hasSizeGreaterThanOrEqualTo(2);
            assertThat(r.lost()).as("lost messages; " + r).isZero();
            assertThat(r.stuck()).as("messages stuck in processing slots; " + r).isZero();
            assertThat(r.depth()).as("messages left in the queue; " + r).isZero();
            assertThat(r.deadLetters()).as("messages dead-lettered; " + r).isZero();
            assertThat(r.processed()).isGreaterThanOrEqualTo(r.messages());
            assertHistoryAgrees(r);
            assertThat(r.maxRecovery()).as("slowest recovery (ms) against heartbeat TTL + 2 sweeps; " + r
                            + "; split as heartbeat expiry + sweep: " + SPLITS)
                    .isLessThanOrEqualTo(TTL.plus(SWEEP.multipliedBy(2)).toMillis());
        }
    }

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void noMessageLostWhenRedisItselfIsKilledTooWithAppendfsyncAlways() throws Exception {
        try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always").start()) {
            Result r = run(server, 30_000, true, true);
            System.out.println("consumer crashes and a Redis kill -9 + restart: " + r);
            if (r.lost() > 0) {
                System.out.println(diagnostics);
            }
            assertThat(r.lost()).as("lost messages; " + r).isZero();
            assertThat(r.stuck()).as("messages stuck in processing slots; " + r).isZero();
            assertThat(r.depth()).as("messages left in the queue; " + r).isZero();
            assertThat(r.deadLetters()).as("messages dead-lettered; " + r).isZero();
            assertHistoryAgrees(r);
        }
    }

    /** The histories judged as a set: every message pushed, nothing lost, stuck or invented. */
    private static void assertHistoryAgrees(Result r) {
        QueueChecker.Result h = r.history();
        assertThat(h.enqueued()).as("messages pushed, in the histories; " + h).isEqualTo(r.messages());
        assertThat(h.valid()).as("histories: nothing lost, stuck or invented; %s; %s", h, h.examples()).isTrue();
        assertThat(h.lost()).as("the histories and the count agree on losses; " + h + " / " + r).isEqualTo(r.lost());
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void negativeControlRedisWithoutPersistenceKilledMidRunIsSeenAsLoss() throws Exception {
        try (RedisServer server = RedisServer.builder().appendOnly(false).start()) {
            Result r = run(server, 20_000, true, false);
            System.out.println("negative control (no persistence, Redis killed): " + r);
            assertThat(r.lost()).as("the checker must see the loss; " + r).isPositive();
            assertThat(r.history().lost()).as("the histories must show the loss too; " + r.history()).isPositive();
        }
    }

    private Result run(RedisServer server, int messages, boolean killRedis, boolean killConsumers) throws Exception {
        Random random = new Random();
        List<ChildJvm> children = new ArrayList<>();
        ConcurrentLinkedQueue<ChildJvm> retired = new ConcurrentLinkedQueue<>();
        List<Long> recoveries = new ArrayList<>();
        int kills = 0;
        Tally tally = new Tally();
        long inFlightAtKill = 0;
        RespClient watch = RespClient.connect(server);
        try (Coordis coordis = TestClients.builder().url(server.uri()).commandTimeout(Duration.ofSeconds(1)).connect();
             History pushed = History.open(dir.resolve("producer.jsonl"), "producer")) {
            ReliableQueue queue = coordis.reliableQueue(QUEUE);
            for (int i = 0; i < CONSUMERS; i++) {
                children.add(startConsumer(server, i));
            }
            Thread producer = new Thread(() -> produce(queue, messages, pushed), "producer");
            producer.start();
            long nextKill = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(800 + random.nextInt(700));
            boolean redisKilled = false;
            long quietSince = System.nanoTime();
            int lastSeen = -1;
            while (true) {
                Thread.sleep(300);
                int seen = tally.update(children, retired);
                if (killRedis && !redisKilled && seen > messages / 4) {
                    server.restart(Duration.ZERO);
                    redisKilled = true;
                    watch.close();
                    watch = RespClient.connect(server);
                }
                int victim = random.nextInt(children.size());
                // a replacement takes seconds to start on a loaded 2-core machine: killing while one starts could
                // leave no consumer up to sweep, and the recovery would measure that start, not the sweep
                boolean due = killConsumers && kills < MAX_KILLS && seen < messages * 0.9 && System.nanoTime() > nextKill
                        && children.stream().allMatch(c -> consumerId(c) != null);
                if (due) {
                    // prefer a consumer that holds messages right now, so most kills exercise recovery (consumers
                    // that outpace the producer are often idle at a random instant)
                    for (int k = 0; k < children.size(); k++) {
                        int candidate = (victim + k) % children.size();
                        String cid = consumerId(children.get(candidate));
                        if (cid != null && held(watch, cid) > 0) {
                            victim = candidate;
                            break;
                        }
                    }
                }
                String id = consumerId(children.get(victim));
                if (due && id != null) {
                    ChildJvm old = children.get(victim);
                    old.close(); // SIGKILL
                    long killedAt = System.nanoTime();
                    kills++;
                    retired.add(old);
                    long held = held(watch, id);
                    if (held > 0) {
                        inFlightAtKill += held;
                        recoveries.add(awaitRecovery(watch, id, killedAt));
                    }
                    // the replacement starts once the recovery is measured: a JVM starting on a 2-core machine
                    // would otherwise starve the survivors' sweep timers and the measurement would judge the
                    // machine, not the sweep
                    children.set(victim, startConsumer(server, victim));
                    // the recovery just measured already spaced kills by about a heartbeat TTL
                    nextKill = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(700 + random.nextInt(1000));
                }
                if (seen != lastSeen) {
                    lastSeen = seen;
                    quietSince = System.nanoTime();
                }
                boolean allSeen = seen >= messages;
                boolean quiet = System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(killRedis ? 3 : 15);
                if (!producer.isAlive() && (allSeen || quiet) && idle(watch)) {
                    break;
                }
            }
            producer.join();
            Thread.sleep(200); // the last reports are flushed before their acks
            tally.update(children, retired);
            TreeMap<Long, Integer> counts = tally.counts;
            int lost = 0;
            List<Long> lostIds = new ArrayList<>();
            for (long m = 0; m < messages; m++) {
                if (!counts.containsKey(m)) {
                    lost++;
                    if (lostIds.size() < 40) {
                        lostIds.add(m);
                    }
                }
            }
            List<Long> dupIds = counts.entrySet().stream().filter(e -> e.getValue() > 1).map(java.util.Map.Entry::getKey)
                    .toList();
            int duplicates = counts.values().stream().mapToInt(n -> n - 1).sum();
            int processed = counts.values().stream().mapToInt(n -> n).sum();
            StringBuilder diag = new StringBuilder();
            List<ChildJvm> everyone = new ArrayList<>(children);
            everyone.addAll(retired);
            for (ChildJvm c : everyone) {
                List<String> lines = reported(c);
                diag.append(c).append(": ").append(lines.stream().filter(l -> !l.startsWith("P ") && !l.startsWith("D "))
                        .limit(30).toList()).append('\n');
                for (int i = 0; i < lines.size(); i++) {
                    if (!lostIds.isEmpty() && lines.get(i).startsWith("P ")
                            && lines.get(i).contains(" " + (lostIds.get(0) - 1))) {
                        diag.append("  around first lost: ").append(lines.subList(Math.max(0, i - 4),
                                Math.min(lines.size(), i + 6))).append('\n');
                    }
                }
            }
            diagnostics = diag.toString();
            // what is left at the end, for the histories: waiting in the queue, or in a processing slot
            for (Object m : (List<?>) watch.command("LRANGE", Prefixed.key(QUEUE), "0", "-1")) {
                pushed.record("info", "ready", QUEUE, text(m), -1);
            }
            for (Object key : (List<?>) watch.command("KEYS", Prefixed.derived(QUEUE, "proc:*"))) {
                for (Object m : (List<?>) watch.command("LRANGE", text(key), "0", "-1")) {
                    pushed.record("info", "stuck", QUEUE, text(m), -1);
                }
            }
            QueueChecker.Result history = QueueChecker.check(Histories.read(dir));
            System.out.println("queue histories: " + history);
            return new Result(messages, processed, lost, duplicates, dupIds.subList(0, Math.min(20, dupIds.size())),
                    stuck(watch), (Long) watch.command("LLEN", Prefixed.key(QUEUE)),
                    (Long) watch.command("LLEN", Prefixed.derived(QUEUE, "dead")), lostIds, recoveries, kills,
                    inFlightAtKill, history);
        } finally {
            watch.close();
            children.forEach(ChildJvm::close);
            retired.forEach(ChildJvm::close);
        }
    }

    private static void produce(ReliableQueue queue, int messages, History pushed) {
        int batch = 500;
        for (int from = 0; from < messages; from += batch) {
            List<byte[]> payloads = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            for (int m = from; m < Math.min(messages, from + batch); m++) {
                ids.add(Integer.toString(m));
                payloads.add(Integer.toString(m).getBytes(StandardCharsets.UTF_8));
            }
            while (true) {
                try {
                    queue.pushAll(payloads);
                    pushed.recordAll("ok", "enqueue", QUEUE, ids, -1);
                    break;
                } catch (CoordisException e) {
                    pushed.recordAll("info", "enqueue", QUEUE, ids, -1); // may have been pushed
                    sleep(50); // reply lost or Redis restarting: push again (a duplicate at worst)
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private static final java.util.Map<ChildJvm, Path> REPORTS = new java.util.concurrent.ConcurrentHashMap<>();

    private ChildJvm startConsumer(RedisServer server, int i) throws java.io.IOException {
        Path report = Files.createTempFile("coordis-crash-consumer-", ".txt");
        report.toFile().deleteOnExit();
        String process = "consumer" + STARTED.incrementAndGet();
        ChildJvm child = ChildJvm.start("consumer-" + i, CrashConsumer.class, List.of(server.address(), QUEUE,
                Long.toString(TTL.toMillis()), Long.toString(SWEEP.toMillis()), report.toString(),
                dir.resolve(process + ".jsonl").toString(), process));
        REPORTS.put(child, report);
        return child;
    }

    /** The complete lines a child reported (a line cut by SIGKILL is ignored: its batch was not acked). */
    private static List<String> reported(ChildJvm child) {
        try {
            String text = Files.readString(REPORTS.get(child), StandardCharsets.UTF_8);
            int end = text.lastIndexOf('\n');
            return end < 0 ? List.of() : List.of(text.substring(0, end).split("\n"));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String consumerId(ChildJvm child) {
        return child.lines().stream().filter(l -> l.startsWith("ID ")).map(l -> l.substring(3)).findFirst().orElse(null);
    }

    private static long held(RespClient watch, String id) {
        long held = 0;
        for (int slot = 0; slot < 8; slot++) {
            held += (Long) watch.command("LLEN", Prefixed.derived(QUEUE, "proc:" + id + ":" + slot));
        }
        return held;
    }

    /**
     * Polls the killed consumer's heartbeat key and slots until the slots are empty; answers the time since
     * the kill, in ms, and records in {@link #SPLITS} how much of it was Redis expiring the heartbeat (bounded
     * by the TTL) and how much the survivors' sweep took after that (bounded by the sweep interval plus
     * scheduling), so an outlier on a loaded machine shows which part was slow.
     */
    private static long awaitRecovery(RespClient watch, String id, long killedAt) {
        long limit = killedAt + TimeUnit.SECONDS.toNanos(30);
        long heartbeatGone = -1;
        while (System.nanoTime() < limit) {
            if (heartbeatGone < 0 && (Long) watch.command("EXISTS", Prefixed.derived(QUEUE, "hb:" + id)) == 0) {
                heartbeatGone = System.nanoTime();
            }
            if (held(watch, id) == 0) {
                break;
            }
            sleep(10);
        }
        long now = System.nanoTime();
        long gone = heartbeatGone < 0 ? now : heartbeatGone;
        SPLITS.add(TimeUnit.NANOSECONDS.toMillis(gone - killedAt) + "+" + TimeUnit.NANOSECONDS.toMillis(now - gone));
        return TimeUnit.NANOSECONDS.toMillis(now - killedAt);
    }

    /** Per recovery: ms until the heartbeat expired + ms from then until the slots were empty. */
    private static final List<String> SPLITS = java.util.Collections.synchronizedList(new ArrayList<>());

    private static boolean idle(RespClient watch) {
        return (Long) watch.command("LLEN", Prefixed.key(QUEUE)) == 0 && stuck(watch) == 0
                && (Long) watch.command("ZCARD", Prefixed.derived(QUEUE, "delayed")) == 0;
    }

    private static long stuck(RespClient watch) {
        long n = 0;
        for (Object key : (List<?>) watch.command("KEYS", Prefixed.derived(QUEUE, "proc:*"))) {
            n += (Long) watch.command("LLEN", (String) key);
        }
        return n;
    }

    /** Counts every id reported processed, reading only the lines that are new since the last update. */
    private static final class Tally {
        final TreeMap<Long, Integer> counts = new TreeMap<>();
        final java.util.Map<ChildJvm, Integer> read = new java.util.IdentityHashMap<>();

        int update(List<ChildJvm> children, ConcurrentLinkedQueue<ChildJvm> retired) {
            List<ChildJvm> all = new ArrayList<>(children);
            all.addAll(retired);
            for (ChildJvm c : all) {
                List<String> lines = reported(c);
                int from = read.getOrDefault(c, 0);
                for (String line : lines.subList(from, lines.size())) {
                    if (line.startsWith("P ")) {
                        for (String id : line.substring(2).split(" ")) {
                            counts.merge(Long.parseLong(id), 1, Integer::sum);
                        }
                    }
                }
                read.put(c, lines.size());
            }
            return counts.size();
        }
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
