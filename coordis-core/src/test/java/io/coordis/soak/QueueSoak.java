package io.coordis.soak;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.queue.CrashConsumer;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code soak.messages} (default 2,000,000) messages through the reliable queue while its three consumer JVMs
 * ({@link CrashConsumer}: report each batch as processed, then ack it) are SIGKILLed every 2-5 s (the first after
 * 3-5 s), preferably one holding messages, and replaced once its messages are back; and Redis itself ({@code appendfsync always})
 * is killed -9 and restarted once a quarter of the messages went through, then every 30-60 s. The producer
 * keeps at most 20,000 messages waiting.
 *
 * <p>Asserted: every message pushed and processed, 0 lost (pushed, never processed, in no list of the queue), 0
 * stuck in processing lists, nothing left waiting or dead-lettered, no message processed that was not pushed, no
 * consumer exiting on its own (one that does is replaced and reported with its output), and both kinds of fault happened (a consumer kill with messages in flight among them). Reported: lost and duplicates per million, the
 * recovery after each consumer kill (kill until its slots were empty) against the documented bound of heartbeat
 * TTL + 2 sweep intervals, throughput.
 */
class QueueSoak {
    private static final String QUEUE = "soak:queue";
    private static final int CONSUMERS = 3;
    private static final int SLOTS = 8;
    private static final Duration TTL = Duration.ofMillis(1000);
    private static final Duration SWEEP = Duration.ofMillis(250);
    private static final int BATCH = 500;
    private static final long MAX_WAITING = 20_000;
    private static final Duration GIVE_UP_QUIET = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    private final List<Path> reports = new ArrayList<>();
    /** Consumers that exited without being killed: what each printed last. */
    private final List<String> crashes = new ArrayList<>();
    private int started;

    @Test
    void noMessageLostOrStuckWhileConsumersAndRedisAreKilled() throws Exception {
        int messages = SoakSettings.messages();
        long seed = SoakSettings.seed("QueueSoak");
        Random random = new Random(seed);
        SoakReport report = new SoakReport("QueueSoak: reliable queue, consumers and Redis killed", seed);
        Tally tally = new Tally(messages);
        Kills kills = new Kills();
        long bound = TTL.plus(SWEEP.multipliedBy(2)).toNanos();
        int redisKills = 0;
        List<ChildJvm> consumers = new ArrayList<>();
        AtomicLong waiting = new AtomicLong();
        AtomicInteger pushed = new AtomicInteger();
        long begin = System.nanoTime();
        try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always").start();
             Watch watch = new Watch(server);
             Coordis coordis = TestClients.builder().url(server.uri()).commandTimeout(Duration.ofSeconds(1))
                     .connect()) {
            ReliableQueue queue = coordis.reliableQueue(QUEUE);
            for (int i = 0; i < CONSUMERS; i++) {
                consumers.add(startConsumer(server));
            }
            Thread producer = new Thread(() -> produce(queue, messages, waiting, pushed), "soak-producer");
            producer.setDaemon(true);
            producer.start();
            long nextKill = System.nanoTime() + millis(3000 + random.nextInt(2000)); // once the consumers are busy
            long nextRedisKill = Long.MAX_VALUE;
            long nextProgress = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            long quietSince = System.nanoTime();
            int lastSeen = -1;
            boolean stallShown = false;
            while (true) {
                Thread.sleep(300);
                int seen = tally.update(reports);
                waiting.set(watch.number("LLEN", Prefixed.key(QUEUE)));
                boolean faultsDue = seen < messages * 0.95;
                if (redisKills == 0 && seen >= messages / 4) {
                    nextRedisKill = System.nanoTime();
                }
                if (faultsDue && System.nanoTime() >= nextRedisKill) {
                    server.restart(Duration.ZERO); // kill -9, start again on the same AOF
                    watch.reconnect();
                    redisKills++;
                    nextRedisKill = System.nanoTime() + millis(30_000 + random.nextInt(30_000));
                }
                replaceExited(consumers, server);
                if (faultsDue && System.nanoTime() >= nextKill && killOne(consumers, random, watch, server, kills)) {
                    nextKill = System.nanoTime() + millis(2000 + random.nextInt(3000));
                }
                if (seen != lastSeen) {
                    lastSeen = seen;
                    quietSince = System.nanoTime();
                }
                if (System.nanoTime() > nextProgress) {
                    System.out.printf("QueueSoak: %s, %,d of %,d messages processed, %d consumer kills, %d Redis kills%n",
                            SoakReport.duration(Duration.ofNanos(System.nanoTime() - begin)), seen, messages,
                            kills.count, redisKills);
                    nextProgress = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
                }
                long quiet = System.nanoTime() - quietSince;
                if (quiet > millis(30_000) && seen < messages && !stallShown) {
                    stallShown = true; // what the consumers were doing when progress stopped
                    System.out.println("QueueSoak: no progress for 30 s at " + seen + " processed:\n"
                            + describeStall(consumers, watch));
                }
                boolean done = !producer.isAlive() && (seen >= messages || quiet > millis(30_000)) && idle(watch);
                if (done || quiet > GIVE_UP_QUIET.toNanos()) {
                    break;
                }
            }
            producer.interrupt();
            producer.join(10_000);
            Thread.sleep(500); // the last reports are written before their acks
            int processed = tally.update(reports);
            Duration took = Duration.ofNanos(System.nanoTime() - begin);
            long stuck = stuck(watch);
            long left = watch.number("LLEN", Prefixed.key(QUEUE));
            long dead = watch.number("LLEN", Prefixed.derived(QUEUE, "dead"));
            long delayed = watch.number("ZCARD", Prefixed.derived(QUEUE, "delayed"));
            java.util.Set<Integer> inRedis = storedIds(watch);
            long lost = tally.missingAmong(pushed.get(), inRedis);
            long neverPushed = messages - pushed.get();
            String stall = processed < messages ? describeStall(consumers, watch) : "";
            if (!stall.isEmpty()) {
                System.out.println("QueueSoak stalled at " + processed + " of " + messages + " processed:\n" + stall);
            }

            report.figure("messages (soak.messages)", SoakReport.count(messages))
                    .figure("duration / throughput", SoakReport.duration(took) + " / "
                            + SoakReport.count(Math.round(messages / Math.max(1e-3, took.toMillis() / 1000.0))) + " msg/s")
                    .figure("consumer JVMs SIGKILLed", kills.count + " (" + kills.recovery.count() + " with messages in flight, "
                            + SoakReport.count(kills.inFlight) + " messages in flight in all)")
                    .figure("Redis kill -9 + restart (appendfsync always)", redisKills)
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
            report.check("every message pushed and processed (no stall)", neverPushed == 0 && tally.missing() == 0)
                    .check("0 lost", lost == 0)
                    .check("0 stuck, nothing left waiting, delayed or dead-lettered", stuck == 0 && left == 0 && delayed == 0
                            && dead == 0)
                    .check("nothing processed that was not pushed", tally.phantoms == 0)
                    .check("no consumer crashed", crashes.isEmpty())
                    .check("consumers and Redis were killed during the run, and a kill found messages in flight",
                            kills.recovery.count() > 0 && redisKills > 0);
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
            report.write();

            assertThat(lost).as("lost messages (seed " + seed + "), first: "
                    + tally.firstMissingAmong(pushed.get(), inRedis, 20)).isZero();
            assertThat(processed).as("messages processed (seed " + seed + "); the run stalled:\n" + stall).isEqualTo(messages);
            assertThat(stuck).as("messages stuck in processing lists").isZero();
            assertThat(left + delayed + dead).as("messages left waiting, delayed or dead-lettered").isZero();
            assertThat(tally.phantoms).as("processed ids nobody pushed").isZero();
            assertThat(crashes).as("consumers that exited on their own").isEmpty();
            assertThat(kills.recovery.count()).as("consumer kills that found messages in flight").isPositive();
            assertThat(redisKills).as("Redis kills").isPositive();
        } finally {
            consumers.forEach(ChildJvm::close);
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
    private boolean killOne(List<ChildJvm> consumers, Random random, Watch watch, RedisServer server, Kills kills)
            throws InterruptedException {
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
    private void replaceExited(List<ChildJvm> consumers, RedisServer server) {
        for (int i = 0; i < consumers.size(); i++) {
            ChildJvm c = consumers.get(i);
            if (!c.isAlive()) {
                String described = c.describe();
                crashes.add(described);
                System.out.println("QueueSoak: a consumer exited on its own, replaced:\n" + described);
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

    private static void produce(ReliableQueue queue, int messages, AtomicLong waiting, AtomicInteger pushed) {
        try {
            for (int from = 0; from < messages; from += BATCH) {
                while (waiting.get() > MAX_WAITING) {
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
    private String describeStall(List<ChildJvm> consumers, Watch watch) {
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
