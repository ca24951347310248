package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.signal.Signal;
import io.coordis.signal.SignalListener;
import io.coordis.signal.Subscription;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.history.Histories;
import io.coordis.testkit.history.History;
import io.coordis.testkit.history.LeaderChecker;
import io.coordis.testkit.history.LockChecker;
import io.coordis.testkit.history.Op;
import io.coordis.testkit.history.QueueChecker;
import io.coordis.testkit.history.SignalChecker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Client processes write their histories as JSON lines; the checkers read the files and judge them. Each
 * checker judges the real primitive valid and flags a deliberately broken variant run the same way — proof
 * it can see the violation it looks for.
 */
class HistoryCheckersIT {
    private static final Duration LOCK_TTL = Duration.ofMillis(100);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void lockHistoriesAreValidForTheRealLockAndFlaggedForEveryBrokenVariant() throws Exception {
        LockChecker.Result real = runLocks("lock");
        LockChecker.Result noNx = runLocks("lock-no-nx");
        LockChecker.Result plainDel = runLocks("lock-plain-del");
        LockChecker.Result noFence = runLocks("lock-no-fence");
        System.out.println("lock histories: real " + real + "\n  no NX " + noNx + "\n  plain DEL " + plainDel
                + "\n  no fencing " + noFence);

        assertThat(real.acquisitions()).as("the real lock made progress").isGreaterThan(5);
        assertThat(real.valid()).as("real lock: %s", real.examples()).isTrue();
        assertThat(noNx.overlaps()).as("SET without NX lets holders overlap").isPositive();
        assertThat(plainDel.overlaps()).as("a plain DEL removes the next holder's lock").isPositive();
        assertThat(noFence.fenceViolations()).as("tokens not from Redis are not ordered").isPositive();
    }

    private LockChecker.Result runLocks(String mode) throws Exception {
        Path histories = Files.createDirectory(dir.resolve(mode));
        String name = "hist:" + mode;
        List<ChildJvm> workers = new ArrayList<>();
        try {
            for (int p = 0; p < 2; p++) {
                workers.add(ChildJvm.start(mode + p, HistoryWorker.class, List.of(redis.server().address(), mode, name,
                        histories.resolve("p" + p + ".jsonl").toString(), "p" + p, "3", "4",
                        Long.toString(LOCK_TTL.toMillis()))));
            }
            for (ChildJvm w : workers) {
                w.awaitLine("DONE", Duration.ofSeconds(60));
            }
        } finally {
            workers.forEach(ChildJvm::close);
        }
        return LockChecker.check(Histories.read(histories), LOCK_TTL);
    }

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void queueHistoriesLoseNothingWithTheReliableQueueAndShowTheLossWithRpop() throws Exception {
        QueueChecker.Result reliable = runQueue("queue");
        QueueChecker.Result rpop = runQueue("queue-rpop");
        System.out.println("queue histories, consumers SIGKILLed: reliable " + reliable + "\n  RPOP " + rpop);

        assertThat(reliable.enqueued()).isEqualTo(1500);
        assertThat(reliable.valid()).as("reliable queue: %s", reliable.examples()).isTrue();
        assertThat(rpop.lost()).as("a message popped by a consumer that died is gone").isPositive();
    }

    private QueueChecker.Result runQueue(String mode) throws Exception {
        Path histories = Files.createDirectory(dir.resolve(mode));
        String name = "hist:" + mode;
        Random random = new Random(7);
        List<ChildJvm> consumers = new ArrayList<>();
        int[] incarnation = {0};
        java.util.function.Supplier<ChildJvm> start = () -> {
            int n = incarnation[0]++;
            ChildJvm c = ChildJvm.start(mode + n, HistoryWorker.class, List.of(redis.server().address(), mode, name,
                    histories.resolve("consumer" + n + ".jsonl").toString(), "consumer" + n));
            try {
                c.awaitLine("READY", Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return c;
        };
        try (Coordis coordis = TestClients.connect(redis.uri());
             History producer = History.open(histories.resolve("producer.jsonl"), "producer");
             RespClient admin = RespClient.connect(redis.server())) {
            consumers.add(start.get());
            consumers.add(start.get());
            long nextKill = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            int kills = 0;
            for (int i = 0; i < 1500; i++) {
                String id = "m-" + i;
                producer.invoke("enqueue", name, id, -1);
                if (mode.equals("queue")) {
                    coordis.reliableQueue(name).push(id);
                } else {
                    coordis.queue(name).push(id);
                }
                producer.ok("enqueue", name, id, -1);
                Thread.sleep(1);
                if (System.nanoTime() > nextKill && kills < 6) {
                    int victim = random.nextInt(consumers.size());
                    consumers.remove(victim).close(); // SIGKILL
                    kills++;
                    consumers.add(start.get());
                    nextKill = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200 + random.nextInt(300));
                }
            }
            // drained: nothing ready, nothing in a processing list (a dead consumer's slots swept back)
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline && (depth(admin, name) > 0 || !processingLists(admin, name).isEmpty())) {
                Thread.sleep(100);
            }
            consumers.forEach(ChildJvm::close);
            consumers.clear();
            for (Object id : list(admin, Prefixed.key(name))) {
                producer.info("ready", name, text(id), -1);
            }
            for (String key : processingLists(admin, name)) {
                for (Object id : list(admin, key)) {
                    producer.info("stuck", name, text(id), -1);
                }
            }
        } finally {
            consumers.forEach(ChildJvm::close);
        }
        return QueueChecker.check(Histories.read(histories));
    }

    private static long depth(RespClient admin, String name) {
        return (Long) admin.command("LLEN", Prefixed.key(name));
    }

    private static List<?> list(RespClient admin, String key) {
        return (List<?>) admin.command("LRANGE", key, "0", "-1");
    }

    private static List<String> processingLists(RespClient admin, String name) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) admin.command("SCAN", cursor, "MATCH", Prefixed.derived(name, "proc:*"),
                    "COUNT", "1000");
            cursor = text(reply.get(0));
            for (Object k : (List<?>) reply.get(1)) {
                String key = text(k);
                if (((Long) admin.command("LLEN", key)) > 0) {
                    keys.add(key);
                }
            }
        } while (!cursor.equals("0"));
        return keys;
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, java.nio.charset.StandardCharsets.UTF_8) : String.valueOf(o);
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void electionHistoriesHaveOneLeaderPerTermAndFlagLeadersThatReuseATerm() throws Exception {
        LeaderChecker.Result real = runElections(false);
        LeaderChecker.Result reused = runElections(true);
        System.out.println("election histories: real " + real + "\n  term reused " + reused);

        assertThat(real.elections()).as("leaders came and went").isGreaterThan(10);
        assertThat(real.valid()).as("real election: %s", real.examples()).isTrue();
        assertThat(reused.sharedTerms()).as("leaders that read a term instead of taking a new one share it").isPositive();
    }

    private LeaderChecker.Result runElections(boolean broken) throws Exception {
        Path histories = Files.createDirectory(dir.resolve(broken ? "elect-broken" : "elect"));
        String name = broken ? "hist:elect-broken" : "hist:elect";
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<Thread> candidates = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int c = 0; c < 3; c++) {
            String id = "c" + c;
            Thread t = new Thread(() -> {
                try (Coordis coordis = TestClients.connect(redis.uri());
                     RespClient raw = RespClient.connect(redis.server());
                     History history = History.open(histories.resolve(id + ".jsonl"), id)) {
                    LeaderElection election = coordis.election(name, ElectionOptions.defaults()
                            .withTtl(Duration.ofMillis(500)).withCandidateId(id));
                    while (System.nanoTime() < until) {
                        history.invoke("campaign", name, id, -1);
                        if (broken) {
                            // leadership by SET NX, but the term is read rather than taken: every leader gets the same
                            String leaderKey = Prefixed.key(name + ":leader");
                            if (!"OK".equals(raw.command("SET", leaderKey, id, "NX", "PX", "500"))) {
                                history.fail("campaign", name, id, -1);
                                Thread.sleep(3);
                                continue;
                            }
                            Object term = raw.command("GET", Prefixed.key(name + ":term"));
                            history.ok("elected", name, id, term == null ? 0 : Long.parseLong(text(term)));
                            Thread.sleep(20);
                            history.invoke("resign", name, id, -1);
                            raw.command("DEL", leaderKey);
                            history.ok("resign", name, id, -1);
                            continue;
                        }
                        Optional<Leadership> won = election.campaign(Duration.ofMillis(300));
                        if (won.isEmpty()) {
                            history.fail("campaign", name, id, -1);
                            continue;
                        }
                        history.ok("elected", name, id, won.get().term());
                        Thread.sleep(20);
                        history.invoke("resign", name, id, won.get().term());
                        won.get().resign();
                        history.ok("resign", name, id, won.get().term());
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "candidate-" + id);
            candidates.add(t);
            t.start();
        }
        for (Thread t : candidates) {
            t.join();
        }
        assertThat(failures).isEmpty();
        return LeaderChecker.check(Histories.read(histories));
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void signalHistoriesAccountForEveryMissedSignalWithAGapAndFlagASilentSubscriber() throws Exception {
        Path histories = dir;
        String channel = "hist:signal";
        RedisClient lettuce = RedisClient.create(redis.uri());
        try (Coordis coordis = TestClients.connect(redis.uri());
             RespClient admin = RespClient.connect(redis.server());
             History sender = History.open(histories.resolve("sender.jsonl"), "sender");
             History coordisReceiver = History.open(histories.resolve("coordis.jsonl"), "coordis");
             History rawReceiver = History.open(histories.resolve("raw.jsonl"), "raw")) {
            Subscription subscription = coordis.signals().listen(List.of(channel), new SignalListener() {
                @Override
                public void onSignal(Signal signal) {
                    coordisReceiver.ok("receive", channel, signal.data(), -1);
                }

                @Override
                public void onGap(String node) {
                    coordisReceiver.info("gap", channel, node, -1);
                }
            });
            coordisReceiver.ok("subscribed", channel, "", -1);
            // the negative control: plain pub/sub; Lettuce resubscribes after a reconnect and says nothing
            StatefulRedisPubSubConnection<String, String> pubsub = lettuce.connectPubSub();
            pubsub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String ch, String message) {
                    rawReceiver.ok("receive", channel, message, -1);
                }
            });
            pubsub.sync().subscribe(Prefixed.key(channel));
            rawReceiver.ok("subscribed", channel, "", -1);

            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            long nextKill = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
            int kills = 0;
            for (int i = 0; System.nanoTime() < until; i++) {
                String id = "s-" + i;
                sender.invoke("notify", channel, id, -1);
                coordis.signals().signal(channel, id);
                sender.ok("notify", channel, id, -1);
                if (System.nanoTime() > nextKill) {
                    admin.command("CLIENT", "KILL", "TYPE", "pubsub");
                    kills++;
                    nextKill = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
                }
                Thread.sleep(1);
            }
            Thread.sleep(300); // the last signals arrive
            coordisReceiver.ok("unsubscribed", channel, "", -1);
            rawReceiver.ok("unsubscribed", channel, "", -1);
            subscription.close();
            pubsub.close();
            assertThat(kills).isGreaterThanOrEqualTo(4);
        } finally {
            lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        List<Op> ops = Histories.read(histories);
        SignalChecker.Result coordisResult = SignalChecker.check(ops.stream().filter(o -> !o.process().equals("raw")).toList());
        SignalChecker.Result rawResult = SignalChecker.check(ops.stream().filter(o -> !o.process().equals("coordis")).toList());
        System.out.println("signal histories, pub/sub connections killed: coordis " + coordisResult + "\n  raw " + rawResult);

        assertThat(coordisResult.valid()).as("coordis: %s", coordisResult.examples()).isTrue();
        assertThat(coordisResult.missedWithGap()).as("the kills cost signals, each reported as a gap").isPositive();
        assertThat(rawResult.silentlyMissed()).as("plain pub/sub misses signals without a word").isPositive();
    }
}
