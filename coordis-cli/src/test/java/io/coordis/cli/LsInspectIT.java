package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.cli.support.ExitCodes;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.LeaderEvent;
import io.coordis.election.Leadership;
import io.coordis.latch.CountDownLatch;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.ReliableQueue;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.signal.Waiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.coordis.cli.TestJson.list;
import static io.coordis.cli.TestJson.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code coordis ls} and {@code coordis inspect} against real objects of every kind, made by Coordis and by
 * another client speaking raw RESP; the JSON output is parsed and checked field by field.
 */
class LsInspectIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis coordis;
    private RespClient raw;
    private RespClient subscriber;
    private final InProcess cli = new InProcess();

    @BeforeEach
    void connect() {
        coordis = TestClients.connect(redis.uri());
        raw = RespClient.connect(redis.server());
    }

    @AfterEach
    void disconnect() {
        if (subscriber != null) {
            subscriber.close();
        }
        raw.close();
        coordis.close();
    }

    private Map<String, Object> json(String... args) {
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(new String[] {"-o", "json", "-u", redis.uri()}, 0, all, args.length, 4);
        int status = cli.run(all);
        assertThat(status).as(cli.err()).isZero();
        assertThat(cli.out().lines()).as("one JSON document").hasSize(1);
        return TestJson.object(cli.out());
    }

    private static Map<String, Map<String, Object>> byName(Map<String, Object> doc, String field) {
        return list(doc.get("items")).stream().map(TestJson::map)
                .collect(Collectors.toMap(m -> (String) m.get(field), m -> m, (a, b) -> a, java.util.TreeMap::new));
    }

    private static long number(Object value) {
        return (Long) value;
    }

    @Test
    void locksMadeByCoordisAndByForeignClientsAreListedWithEveryField() throws Exception {
        long before = System.currentTimeMillis();
        Lease lease = coordis.lock("ls:orders", LockOptions.defaults().withTtl(Duration.ofSeconds(30))
                .withHolderId("alice@web1:4242")).tryAcquire().orElseThrow();
        assertThat(raw.command("SET", Prefixed.key("ls:py"), "tok-123", "NX", "PX", "60000")).isEqualTo("OK");
        long legacyExpiry = System.currentTimeMillis() / 1000 + 40;
        raw.command("SETNX", Prefixed.key("ls:legacy"), Long.toString(legacyExpiry));
        // a long value with a TTL: not a lock
        raw.command("SET", Prefixed.key("ls:cache"), "x".repeat(300), "PX", "60000");
        raw.command("SET", Prefixed.key("ls:config"), "on"); // no TTL, not a timestamp: not a lock
        subscriber = RespClient.connect(redis.server());
        subscriber.command("SUBSCRIBE", Prefixed.derived("ls:orders", "released")); // a client waiting for the lock
        long after = System.currentTimeMillis();

        Map<String, Object> doc = json("ls", "locks");
        assertThat(doc.get("kind")).isEqualTo("locks");
        assertThat(doc.get("match")).isEqualTo(Prefixed.key("*"));
        assertThat(number(doc.get("at"))).isBetween(before, System.currentTimeMillis());
        Map<String, Map<String, Object>> locks = byName(doc, "name");
        assertThat(locks).containsOnlyKeys(Prefixed.key("ls:orders"), Prefixed.key("ls:py"), Prefixed.key("ls:legacy"));

        Map<String, Object> ours = locks.get(Prefixed.key("ls:orders"));
        assertThat(ours.get("mode")).isEqualTo("single-node");
        assertThat(ours.get("nodes")).isEqualTo(1L);
        assertThat(ours.get("agreeing")).isEqualTo(1L);
        assertThat(ours.get("held")).isEqualTo(true);
        assertThat(map(ours.get("holder"))).containsEntry("id", "alice@web1:4242").containsEntry("host", "web1")
                .containsEntry("pid", 4242L);
        assertThat(ours.get("token")).isEqualTo(lease.token());
        assertThat(number(ours.get("since"))).isBetween(before, after);
        assertThat(number(ours.get("heldForMs"))).isBetween(0L, 30_000L);
        assertThat(number(ours.get("ttlMs"))).isBetween(1L, 30_000L);
        assertThat(ours.get("leaseTtlMs")).isEqualTo(30_000L);
        assertThat(ours.get("fence")).isEqualTo(lease.fencingToken());
        assertThat(ours.get("fenceCounter")).isEqualTo(lease.fencingToken());
        assertThat(ours.get("waiters")).isEqualTo(1L);
        assertThat(list(ours.get("flags"))).isEmpty();

        Map<String, Object> foreign = locks.get(Prefixed.key("ls:py"));
        assertThat(foreign.get("mode")).isEqualTo("single-node");
        assertThat(foreign.get("held")).isEqualTo(true);
        assertThat(map(foreign.get("holder"))).containsEntry("id", null).containsEntry("host", null)
                .containsEntry("pid", null);
        assertThat(foreign.get("token")).isEqualTo("tok-123");
        assertThat(foreign.get("since")).isNull();
        assertThat(foreign.get("heldForMs")).isNull();
        assertThat(number(foreign.get("ttlMs"))).isBetween(1L, 60_000L);
        assertThat(foreign.get("leaseTtlMs")).isNull();
        assertThat(foreign.get("fence")).isNull();
        assertThat(foreign.get("fenceCounter")).isNull();
        assertThat(foreign.get("waiters")).isEqualTo(0L);
        assertThat(list(foreign.get("flags"))).containsExactly("foreign");

        Map<String, Object> legacy = locks.get(Prefixed.key("ls:legacy"));
        assertThat(legacy.get("mode")).isEqualTo("legacy");
        assertThat(legacy.get("token")).isEqualTo(Long.toString(legacyExpiry));
        assertThat(number(legacy.get("ttlMs"))).as("time until the stored expiry").isBetween(30_000L, 42_000L);
        assertThat(list(legacy.get("flags"))).isEmpty();

        assertThat(cli.run("ls", "locks", "-u", redis.uri())).isZero();
        List<String> lines = cli.out().lines().toList();
        assertThat(lines.get(0).split("\\s{2,}")).containsExactly("NAME", "MODE", "HOLDER", "HOST", "PID", "HELD FOR",
                "TTL", "FENCE", "FLAGS");
        assertThat(lines).hasSize(4);
        assertThat(lines.get(2).split("\\s{2,}")).startsWith(Prefixed.key("ls:orders"), "single", "alice@web1:4242",
                "web1", "4242");
        assertThat(lines.get(2).split("\\s{2,}")).endsWith(Long.toString(lease.fencingToken()), "-");
        assertThat(lines.get(3).split("\\s{2,}")).startsWith(Prefixed.key("ls:py"), "single", "unknown", "-", "-", "-");
        assertThat(lines.get(3)).endsWith("foreign");
        lease.close();
    }

    @Test
    void electionsShowLeaderTermSinceAndTtl() throws Exception {
        long before = System.currentTimeMillis();
        LeaderElection election = coordis.election("ls:leader", ElectionOptions.defaults()
                .withCandidateId("node-a").withTtl(Duration.ofSeconds(20)));
        Leadership leadership = election.campaign(Duration.ofSeconds(5)).orElseThrow();
        Map<String, Map<String, Object>> elections = byName(json("ls", "elections"), "name");
        assertThat(elections).containsOnlyKeys(Prefixed.key("ls:leader"));
        Map<String, Object> e = elections.get(Prefixed.key("ls:leader"));
        assertThat(e.get("leader")).isEqualTo("node-a");
        assertThat(e.get("term")).isEqualTo(leadership.term());
        assertThat(number(e.get("since"))).isBetween(before, System.currentTimeMillis());
        assertThat(number(e.get("leaderForMs"))).isBetween(0L, 20_000L);
        assertThat(number(e.get("ttlMs"))).isBetween(1L, 20_000L);
        assertThat(e.get("termCounter")).isEqualTo(leadership.term());
        assertThat(number(e.get("observers"))).as("an uncontended campaign does not subscribe").isZero();
        CompletableFuture<LeaderEvent> firstEvent = new CompletableFuture<>();
        try (AutoCloseable observing = election.observe(firstEvent::complete)) {
            firstEvent.get(10, TimeUnit.SECONDS); // told once its subscription is confirmed
            subscriber = RespClient.connect(redis.server());
            subscriber.command("SUBSCRIBE", Prefixed.derived("ls:leader", "changed")); // another client's observer
            assertThat(number(byName(json("ls", "elections"), "name").get(Prefixed.key("ls:leader")).get("observers")))
                    .as("one per connection: this client's and the other one's").isEqualTo(2L);
            assertThat(number(json("inspect", "election", "ls:leader").get("observers"))).isEqualTo(2L);
        }
        subscriber.close();
        subscriber = null;
        await().atMost(Duration.ofSeconds(10))
                .until(() -> number(json("inspect", "election", "ls:leader").get("observers")) == 0L);

        assertThat(byName(json("ls", "locks"), "name")).as("an election is not a lock").isEmpty();
        Map<String, Object> one = json("inspect", "election", "ls:leader");
        assertThat(one.get("leader")).isEqualTo("node-a");
        assertThat(one.get("term")).isEqualTo(leadership.term());

        election.resign();
        Map<String, Object> after = json("inspect", "election", "ls:leader");
        assertThat(after.get("leader")).as("nobody leads after resigning").isNull();
        assertThat(after.get("term")).isNull();
        assertThat(after.get("termCounter")).isEqualTo(leadership.term());
        election.close();
    }

    @Test
    void queuesShowDepthAgesInFlightOverdueDeadLettersAndConsumers() throws Exception {
        ReliableQueue jobs = coordis.reliableQueue("ls:jobs");
        jobs.push("m1");
        jobs.push("m2");
        jobs.push("m3");
        raw.command("LPUSH", Prefixed.key("ls:plain"), "a", "b", "c"); // a queue fed by another client
        long now = System.currentTimeMillis();
        // a consumer that died holding a message, before any sweep: registered, no heartbeat
        raw.command("HSET", Prefixed.derived("ls:stuck", "consumers"), "ghost", "1 " + (now - 60_000) + " 5000 600000");
        raw.command("LPUSH", Prefixed.derived("ls:stuck", "proc:ghost:0"), "lost-job");
        raw.command("LPUSH", Prefixed.derived("ls:stuck", "dead"), "poison-1", "poison-2");
        try (Consumer consumer = jobs.consumer()) {
            Delivery delivery = consumer.take(Duration.ofSeconds(5)).orElseThrow();
            assertThat(delivery.text()).isEqualTo("m1");

            Map<String, Map<String, Object>> queues = byName(json("ls", "queues"), "name");
            assertThat(queues).containsOnlyKeys(Prefixed.key("ls:jobs"), Prefixed.key("ls:plain"),
                    Prefixed.key("ls:stuck"));

            Map<String, Object> q = queues.get(Prefixed.key("ls:jobs"));
            assertThat(q.get("depth")).isEqualTo(2L);
            assertThat(number(q.get("oldestReadyAgeMs"))).isBetween(0L, 60_000L);
            assertThat(q.get("inFlight")).isEqualTo(1L);
            assertThat(number(q.get("oldestInFlightAgeMs"))).isBetween(0L, 60_000L);
            assertThat(q.get("overdue")).isEqualTo(0L);
            assertThat(q.get("deadLetters")).isEqualTo(0L);
            assertThat(q.get("delayed")).isEqualTo(0L);
            assertThat(q.get("settled")).as("taken, not acked yet").isEqualTo(0L);
            List<Object> consumers = list(q.get("consumers"));
            assertThat(consumers).hasSize(1);
            Map<String, Object> c = map(consumers.get(0));
            assertThat(c.get("id")).isEqualTo(consumer.id());
            assertThat(c.get("alive")).isEqualTo(true);
            assertThat(c.get("slots")).isEqualTo((long) jobs.options().slots());
            assertThat(c.get("inFlight")).isEqualTo(1L);
            assertThat(number(c.get("lastHeartbeat"))).isBetween(now - 60_000, System.currentTimeMillis() + 1000);
            assertThat(number(c.get("heartbeatAgeMs"))).isBetween(0L, 60_000L);

            Map<String, Object> plain = queues.get(Prefixed.key("ls:plain"));
            assertThat(plain.get("depth")).isEqualTo(3L);
            assertThat(plain.get("oldestReadyAgeMs")).as("pushed by another client: no enqueue time").isNull();
            assertThat(plain.get("inFlight")).isEqualTo(0L);
            assertThat(plain.get("oldestInFlightAgeMs")).isNull();
            assertThat(list(plain.get("consumers"))).isEmpty();

            Map<String, Object> stuck = queues.get(Prefixed.key("ls:stuck"));
            assertThat(stuck.get("depth")).isEqualTo(0L);
            assertThat(stuck.get("inFlight")).isEqualTo(1L);
            assertThat(stuck.get("overdue")).as("held by a dead consumer").isEqualTo(1L);
            assertThat(stuck.get("deadLetters")).isEqualTo(2L);
            Map<String, Object> ghost = map(list(stuck.get("consumers")).get(0));
            assertThat(ghost).containsEntry("id", "ghost").containsEntry("alive", false).containsEntry("inFlight", 1L);
            assertThat(number(ghost.get("heartbeatAgeMs"))).isGreaterThanOrEqualTo(60_000L);

            Map<String, Object> one = json("inspect", "queue", "ls:jobs");
            assertThat(one).containsEntry("name", Prefixed.key("ls:jobs")).containsEntry("depth", 2L)
                    .containsEntry("inFlight", 1L).containsEntry("overdue", 0L);
            assertThat(cli.run("inspect", "queue", "ls:stuck", "-u", redis.uri())).isZero();
            assertThat(cli.out()).contains("overdue           1 (held by dead consumers; the next sweep puts them back)")
                    .contains("dead letters      2").contains("settled           0 (acked or dead-lettered, ever)")
                    .containsPattern("ghost +dead +1 +1 ");

            delivery.ack();
            assertThat(json("inspect", "queue", "ls:jobs")).as("acked").containsEntry("settled", 1L);
            assertThat(cli.run("inspect", "queue", "ls:jobs", "-u", redis.uri())).isZero();
            assertThat(cli.out()).contains("settled           1 (acked or dead-lettered, ever)");
        }
    }

    @Test
    void signalsShowSubscribersAndLatchedEventsButNotCoordisOwnChannels() throws Exception {
        try (Waiter waiter = coordis.signals().waiter("ls:chan")) {
            coordis.signals().event("ls:ready", Duration.ofSeconds(60)).signal("build 7 done");
            subscriber = RespClient.connect(redis.server());
            subscriber.command("SUBSCRIBE", Prefixed.key("ls:foreign-chan"));
            subscriber.command("SUBSCRIBE", Prefixed.derived("ls:orders", "released"));
            Map<String, Map<String, Object>> signals = byName(json("ls", "signals"), "channel");
            assertThat(signals).containsOnlyKeys(Prefixed.key("ls:chan"), Prefixed.key("ls:foreign-chan"),
                    Prefixed.key("ls:ready"));
            assertThat(signals.get(Prefixed.key("ls:chan"))).containsEntry("subscribers", 1L)
                    .containsEntry("latched", null).containsEntry("latchedTtlMs", null);
            assertThat(signals.get(Prefixed.key("ls:foreign-chan"))).containsEntry("subscribers", 1L)
                    .containsEntry("latched", null);
            assertThat(signals.get(Prefixed.key("ls:ready"))).containsEntry("latched", "build 7 done");
            assertThat(number(signals.get(Prefixed.key("ls:ready")).get("latchedTtlMs"))).isBetween(1L, 60_000L);

            Map<String, Object> one = json("inspect", "signal", "ls:chan");
            assertThat(one).containsEntry("channel", Prefixed.key("ls:chan")).containsEntry("subscribers", 1L);
            assertThat(cli.run("inspect", "signal", "nobody:listens", "-u", redis.uri())).isZero();
            assertThat(cli.out()).contains("subscribers  0").contains("last event   -");
        }
    }

    @Test
    void inspectShowsObjectsOtherClientsMadeWithRawCommands() throws Exception {
        assertThat(raw.command("SET", Prefixed.key("fx:lock"), "tok-9", "NX", "PX", "60000")).isEqualTo("OK");
        raw.command("LPUSH", Prefixed.key("fx:queue"), "a", "b", "c");
        subscriber = RespClient.connect(redis.server());
        subscriber.command("SUBSCRIBE", Prefixed.key("fx:chan"));
        try (RespClient second = RespClient.connect(redis.server())) {
            second.command("SUBSCRIBE", Prefixed.key("fx:chan"));

            Map<String, Object> lock = json("inspect", "lock", "fx:lock");
            assertThat(lock).containsEntry("name", Prefixed.key("fx:lock")).containsEntry("mode", "single-node")
                    .containsEntry("nodes", 1L).containsEntry("agreeing", 1L).containsEntry("held", true)
                    .containsEntry("token", "tok-9").containsEntry("since", null).containsEntry("heldForMs", null)
                    .containsEntry("leaseTtlMs", null).containsEntry("fence", null).containsEntry("fenceCounter", null)
                    .containsEntry("waiters", 0L);
            assertThat(map(lock.get("holder"))).as("held, by a holder that records nothing").containsEntry("id", null)
                    .containsEntry("host", null).containsEntry("pid", null);
            assertThat(number(lock.get("ttlMs"))).isBetween(1L, 60_000L);
            assertThat(list(lock.get("flags"))).containsExactly("foreign");
            assertThat(list(lock.get("audit"))).isEmpty();
            List<Object> nodes = list(lock.get("perNode"));
            assertThat(nodes).hasSize(1);
            assertThat(map(nodes.get(0))).containsEntry("node", redis.server().host() + ":" + redis.server().port())
                    .containsEntry("token", "tok-9").containsEntry("holder", null).containsEntry("fence", null)
                    .containsEntry("fenceCounter", null).containsEntry("agrees", true).containsEntry("error", null);
            assertThat(number(map(nodes.get(0)).get("ttlMs"))).isBetween(1L, 60_000L);
            assertThat(cli.run("inspect", "lock", "fx:lock", "-u", redis.uri())).isZero();
            assertThat(cli.out()).contains("holder         unknown (taken by a client that records no holder)",
                    "token          tok-9", "since          unknown", "flags          foreign");

            Map<String, Object> queue = json("inspect", "queue", "fx:queue");
            assertThat(queue).containsEntry("name", Prefixed.key("fx:queue")).containsEntry("depth", 3L)
                    .containsEntry("oldestReadyAgeMs", null).containsEntry("inFlight", 0L)
                    .containsEntry("oldestInFlightAgeMs", null).containsEntry("overdue", 0L)
                    .containsEntry("deadLetters", 0L).containsEntry("delayed", 0L).containsEntry("settled", 0L);
            assertThat(list(queue.get("consumers"))).isEmpty();

            Map<String, Object> signal = json("inspect", "signal", "fx:chan");
            assertThat(signal).containsOnlyKeys("channel", "subscribers", "latched", "latchedTtlMs")
                    .containsEntry("channel", Prefixed.key("fx:chan")).containsEntry("subscribers", 2L)
                    .containsEntry("latched", null).containsEntry("latchedTtlMs", null);
        }
        assertThat(raw.command("GET", Prefixed.key("fx:lock"))).as("inspect only reads").isEqualTo("tok-9");
        assertThat(raw.command("LRANGE", Prefixed.key("fx:queue"), "0", "-1")).isEqualTo(List.of("c", "b", "a"));
    }

    /**
     * The classic counter election ({@code INCR} by every candidate, {@code EXPIRE} by the winner) keeps no
     * details: as the README says, it shows up as a foreign lock whose token is the counter, and not as an
     * election. The counter counts rounds, not leaders, and a counter left without its expiry is not listed.
     */
    @Test
    void aCounterElectionShowsUpAsAForeignLockWhoseTokenIsTheCounter() throws Exception {
        String master = Prefixed.key("fx:master_selector");
        assertThat(raw.command("INCR", master)).isEqualTo(1L); // nobody led: this candidate leads
        raw.command("EXPIRE", master, "20");
        try (Coordis other = TestClients.connect(redis.uri())) {
            assertThat(other.counterElection("fx:coordis_selector", Duration.ofSeconds(20)).round()).isTrue();
        }

        Map<String, Map<String, Object>> locks = byName(json("ls", "locks"), "name");
        assertThat(locks).containsOnlyKeys(Prefixed.key("fx:coordis_selector"), master);
        for (Map<String, Object> counter : locks.values()) {
            assertThat(counter).containsEntry("mode", "single-node").containsEntry("held", true)
                    .containsEntry("token", "1").containsEntry("fence", null).containsEntry("since", null)
                    .containsEntry("leaseTtlMs", null);
            assertThat(map(counter.get("holder"))).containsEntry("id", null);
            assertThat(number(counter.get("ttlMs"))).isBetween(15_000L, 20_000L);
            assertThat(list(counter.get("flags"))).containsExactly("foreign");
        }
        assertThat(byName(json("ls", "elections"), "name")).as("no term, no leader id: not an election").isEmpty();
        assertThat(cli.run("ls", "locks", "-u", redis.uri())).isZero();
        assertThat(cli.out().lines().filter(l -> l.startsWith(master)).findFirst().orElseThrow()
                .split("\\s{2,}")).startsWith(master, "single", "unknown", "-", "-", "-").endsWith("-", "foreign");

        // two more candidates' rounds: the "token" moves although the leader stays, and the TTL does not
        raw.command("INCR", master);
        raw.command("INCR", master);
        Map<String, Object> counted = byName(json("ls", "locks"), "name").get(master);
        assertThat(counted).containsEntry("token", "3");
        assertThat(number(counted.get("ttlMs"))).isBetween(1L, 20_000L);

        // a winner that died between INCR and EXPIRE: a counter without expiry is not listed...
        raw.command("INCR", Prefixed.key("fx:stuck_selector"));
        assertThat(byName(json("ls", "locks"), "name")).doesNotContainKey(Prefixed.key("fx:stuck_selector"));
        // ...but inspect shows it, flagged no-expiry
        Map<String, Object> stuck = json("inspect", "lock", "fx:stuck_selector");
        assertThat(stuck).containsEntry("held", true).containsEntry("token", "1").containsEntry("ttlMs", null);
        assertThat(list(stuck.get("flags"))).containsExactly("foreign", "no-expiry");
    }

    @Test
    void matchFiltersEveryKindByGlob() throws Exception {
        raw.command("SET", Prefixed.key("app:a:lock"), "t1", "NX", "PX", "60000");
        raw.command("SET", Prefixed.key("app:b:lock"), "t2", "NX", "PX", "60000");
        raw.command("SET", Prefixed.key("other:lock"), "t3", "NX", "PX", "60000");
        raw.command("LPUSH", Prefixed.key("app:a:queue"), "x");
        raw.command("LPUSH", Prefixed.key("other:queue"), "x");
        raw.command("HSET", Prefixed.derived("app:c:queue", "consumers"), "ghost", "1 0 5000 600000");
        assertThat(byName(json("ls", "locks", "--match", "app:*"), "name")).containsOnlyKeys(Prefixed.key("app:a:lock"),
                Prefixed.key("app:b:lock"));
        assertThat(byName(json("ls", "locks", "--match", "app:[ab]:l?ck"), "name"))
                .containsOnlyKeys(Prefixed.key("app:a:lock"), Prefixed.key("app:b:lock"));
        assertThat(byName(json("ls", "locks", "--match", "app:[^a]:*"), "name"))
                .containsOnlyKeys(Prefixed.key("app:b:lock"));
        assertThat(byName(json("ls", "queues", "--match", "app:*"), "name")).as("found by list and by registry")
                .containsOnlyKeys(Prefixed.key("app:a:queue"), Prefixed.key("app:c:queue"));
        assertThat(byName(json("ls", "queues", "--match", "nothing*"), "name")).isEmpty();
    }

    @Test
    void allKindsAsNewlineDelimitedJsonOneDocumentPerTable() {
        raw.command("SET", Prefixed.key("k"), "v", "NX", "PX", "60000");
        assertThat(cli.run("ls", "-o", "json", "-u", redis.uri())).isZero();
        List<String> docs = cli.out().lines().toList();
        assertThat(docs).hasSize(4);
        assertThat(docs.stream().map(d -> TestJson.object(d).get("kind")))
                .containsExactly("locks", "elections", "queues", "signals");
        assertThat(list(TestJson.object(docs.get(0)).get("items"))).hasSize(1);
        assertThat(cli.err()).isEmpty();
    }

    @Test
    void rateLimitersAndLatchesAreListedAndInspectedWithWhatTheirKeysHold() throws Exception {
        RateLimiter api = coordis.rateLimiter("ls:api", RateLimit.parse("10/1m")); // a permit every 6 s
        assertThat(api.tryAcquire(10).granted()).isTrue();
        assertThat(api.forKey("bob").tryAcquire().granted()).isTrue();
        CountDownLatch batch = coordis.countDownLatch("ls:batch", 3, Duration.ofHours(1));
        batch.countDown();
        coordis.countDownLatch("ls:done", 1, Duration.ofHours(1)).countDown();
        subscriber = RespClient.connect(redis.server());
        subscriber.command("SUBSCRIBE", Prefixed.derived("ls:batch", "latch")); // a client waiting for the opening

        Map<String, Object> limiters = json("ls", "rate-limiters");
        assertThat(limiters.get("kind")).isEqualTo("rate-limiters");
        Map<String, Map<String, Object>> byLimiter = byName(limiters, "name");
        assertThat(byLimiter).containsOnlyKeys(Prefixed.key("ls:api"), Prefixed.key("ls:api:bob"));
        Map<String, Object> busy = byLimiter.get(Prefixed.key("ls:api"));
        assertThat(busy.keySet()).containsExactly("name", "idle", "busyForMs", "theoreticalArrival", "ttlMs");
        assertThat(busy.get("idle")).isEqualTo(false);
        assertThat(number(busy.get("busyForMs"))).isBetween(40_000L, 60_000L);
        assertThat(number(busy.get("ttlMs"))).isBetween(40_000L, 61_000L);
        assertThat(number(busy.get("theoreticalArrival")))
                .isBetween(System.currentTimeMillis() + 30_000, System.currentTimeMillis() + 61_000);
        assertThat(byName(json("ls", "rates", "--match", "ls:api:*"), "name")).as("the command's word names it too")
                .containsOnlyKeys(Prefixed.key("ls:api:bob"));

        Map<String, Map<String, Object>> latches = byName(json("ls", "latches"), "name");
        assertThat(latches).containsOnlyKeys(Prefixed.key("ls:batch"), Prefixed.key("ls:done"));
        assertThat(latches.get(Prefixed.key("ls:batch"))).containsEntry("count", 2L).containsEntry("open", false)
                .containsEntry("waiters", 1L);
        assertThat(number(latches.get(Prefixed.key("ls:batch")).get("ttlMs"))).isBetween(3_000_000L, 3_600_000L);
        assertThat(latches.get(Prefixed.key("ls:done"))).containsEntry("count", 0L).containsEntry("open", true)
                .containsEntry("waiters", 0L);
        Map<String, Object> inspected = json("inspect", "latch", "ls:batch");
        assertThat(inspected.keySet()).containsExactly("name", "count", "open", "ttlMs", "waiters");
        inspected.remove("ttlMs");
        assertThat(latches.get(Prefixed.key("ls:batch"))).as("the item of ls, but for the TTL, which runs down")
                .containsAllEntriesOf(inspected);

        assertThat(cli.run("ls", "-u", redis.uri())).isZero();
        assertThat(cli.out()).as("shown with every kind, since there are some")
                .contains("rate-limiters (2)", "latches (2)").doesNotContain("semaphores");
        assertThat(cli.out().lines()).anySatisfy(l -> assertThat(l).startsWith(Prefixed.key("ls:batch"))
                .containsPattern("\\s2\\s+closed\\s+1\\s"));
        assertThat(cli.run("ls", "-o", "json", "-u", redis.uri())).isZero();
        assertThat(cli.out().lines().map(d -> TestJson.object(d).get("kind")))
                .containsExactly("locks", "elections", "queues", "signals", "rate-limiters", "latches");

        assertThat(cli.run("inspect", "rate-limiter", "ls:api", "-u", redis.uri())).isZero();
        assertThat(cli.out()).contains("rate limiter  " + Prefixed.key("ls:api"), "(then back at its full burst)",
                "(theoretical, by Redis's clock)", "not stored: each client applies its own");
        assertThat(cli.run("inspect", "latch", "ls:done", "-u", redis.uri())).isZero();
        assertThat(cli.out()).contains("state     open", "waiters   0");
        assertThat(cli.run("inspect", "rate", "ls:idle", "-u", redis.uri())).isEqualTo(1);
        assertThat(cli.err()).startsWith("coordis: no rate-limiter '" + Prefixed.key("ls:idle") + "'")
                .contains("an idle rate limiter keeps no key").hasLineCount(1);
        assertThat(raw.command("GET", Prefixed.derived("ls:batch", "latch"))).as("inspect only reads").isEqualTo("2");
        assertThat(raw.command("EXISTS", Prefixed.derived("ls:idle", "rate"))).isEqualTo(0L);
    }

    @Test
    void aRateLimiterOrLatchKeyHoldingSomethingElseIsLeftOutAndRefusedByName() {
        raw.command("SET", Prefixed.derived("ls:junk", "rate"), "soon", "PX", "60000");
        raw.command("LPUSH", Prefixed.derived("ls:list", "latch"), "x");
        assertThat(byName(json("ls", "rate-limiters"), "name")).isEmpty();
        assertThat(byName(json("ls", "latches"), "name")).isEmpty();
        assertThat(cli.run("inspect", "rate-limiter", "ls:junk", "-u", redis.uri())).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).isEqualTo("coordis: key '" + Prefixed.derived("ls:junk", "rate") + "' holds a string that "
                + "is no rate limiter's arrival time (microseconds since the epoch): not a rate limiter\n");
        assertThat(cli.run("inspect", "latch", "ls:list", "-u", redis.uri())).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).startsWith("coordis: key '" + Prefixed.derived("ls:list", "latch")
                + "' holds a list, not a latch").hasLineCount(1);
        cli.assertUsageError(cli.run("ls", "limiters", "-u", redis.uri()),
                "unknown kind 'limiters': use locks, elections, queues, signals or semaphores (also rate-limiters or "
                        + "latches)", "coordis ls");
    }

    @Test
    void inspectLockShowsForcedUnlockAuditEntriesNewestFirst() throws Exception {
        Lease lease = coordis.lock("ls:audited", LockOptions.defaults().withHolderId("dave@db2:17")).tryAcquire()
                .orElseThrow();
        long fence = lease.fencingToken();
        lease.close();
        String auditKey = Prefixed.derived("ls:audited", "audit");
        raw.command("LPUSH", auditKey, "{\"at\":1700000000000,\"by\":\"bob@ops:77\",\"action\":\"force-unlock\","
                + "\"reason\":\"stuck \\\"deploy\\\"\",\"holder\":\"dave@db2:17\",\"fence\":" + (fence + 1) + "}");
        raw.command("LPUSH", auditKey, "{\"at\":1700000100000,\"by\":\"eve@ops:78\",\"action\":\"force-unlock\","
                + "\"reason\":\"\",\"holder\":\"unknown\",\"fence\":" + (fence + 2) + "}");
        Map<String, Object> doc = json("inspect", "lock", "ls:audited");
        assertThat(doc.get("held")).isEqualTo(false);
        assertThat(doc.get("holder")).isNull();
        assertThat(doc.get("token")).isNull();
        assertThat(doc.get("fenceCounter")).isEqualTo(fence);
        List<Object> audit = list(doc.get("audit"));
        assertThat(audit).hasSize(2);
        Map<String, Object> newest = map(audit.get(0));
        assertThat(newest).containsEntry("at", 1700000100000L).containsEntry("by", "eve@ops:78")
                .containsEntry("action", "force-unlock").containsEntry("reason", "").containsEntry("holder", "unknown")
                .containsEntry("fence", fence + 2);
        Map<String, Object> older = map(audit.get(1));
        assertThat(older).containsEntry("by", "bob@ops:77").containsEntry("reason", "stuck \"deploy\"")
                .containsEntry("holder", "dave@db2:17").containsEntry("fence", fence + 1);
        List<Object> nodes = list(doc.get("perNode"));
        assertThat(nodes).hasSize(1);
        assertThat(map(nodes.get(0))).containsEntry("node", redis.server().host() + ":" + redis.server().port())
                .containsEntry("token", null).containsEntry("agrees", false).containsEntry("fenceCounter", fence)
                .containsEntry("error", null);

        assertThat(cli.run("inspect", "lock", "ls:audited", "-u", redis.uri())).isZero();
        assertThat(cli.out()).contains("held           no")
                .contains("2023-11-14T22:15:00Z force-unlock by eve@ops:78, holder unknown, fence now " + (fence + 2))
                .contains("2023-11-14T22:13:20Z force-unlock by bob@ops:77, holder dave@db2:17, fence now " + (fence + 1)
                        + ", reason: stuck \"deploy\"");
        assertThat(cli.out().indexOf("eve@ops:78")).as("newest first").isLessThan(cli.out().indexOf("bob@ops:77"));
    }

    @Test
    void inspectLockOfAHeldLockShowsTheHolderAndItsNode() throws Exception {
        try (Lease lease = coordis.lock("ls:held", LockOptions.defaults().withHolderId("alice@web1:4242")
                .withTtl(Duration.ofSeconds(30))).tryAcquire().orElseThrow()) {
            Map<String, Object> doc = json("inspect", "lock", "ls:held");
            assertThat(doc.get("held")).isEqualTo(true);
            assertThat(map(doc.get("holder"))).containsEntry("id", "alice@web1:4242");
            assertThat(doc.get("fence")).isEqualTo(lease.fencingToken());
            assertThat(list(doc.get("audit"))).isEmpty();
            Map<String, Object> node = map(list(doc.get("perNode")).get(0));
            assertThat(node).containsEntry("token", lease.token()).containsEntry("holder", "alice@web1:4242")
                    .containsEntry("fence", lease.fencingToken()).containsEntry("agrees", true);
            assertThat(number(node.get("ttlMs"))).isBetween(1L, 30_000L);
            assertThat(cli.run("inspect", "lock", "ls:held", "-u", redis.uri())).isZero();
            assertThat(cli.out()).contains("holder         alice@web1:4242 (host web1, pid 4242)")
                    .contains("token          " + lease.token()).contains("audit (newest first): none");
        }
    }

    @Test
    void badInputIsOneClearLineAndExit64() {
        raw.command("LPUSH", Prefixed.key("ls:list"), "x");
        raw.command("SET", Prefixed.key("ls:lock"), "t", "NX", "PX", "60000");
        raw.command("SET", Prefixed.key("ls:string"), "v");
        int status = cli.run("inspect", "lock", "ls:list", "-u", redis.uri());
        assertThat(status).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.out()).isEmpty();
        assertThat(cli.err()).isEqualTo("coordis: key '" + Prefixed.key("ls:list") + "' holds a list, not a lock "
                + "(a queue? try 'inspect queue " + Prefixed.key("ls:list") + "')\n");
        assertThat(cli.run("inspect", "election", "ls:lock", "-u", redis.uri())).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).isEqualTo("coordis: key '" + Prefixed.key("ls:lock") + "' is a lock, not an election "
                + "(try 'inspect lock " + Prefixed.key("ls:lock") + "')\n");
        assertThat(cli.run("inspect", "queue", "ls:string", "-u", redis.uri())).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).startsWith("coordis: key '" + Prefixed.key("ls:string") + "' holds a string, not a queue")
                .hasLineCount(1);

        cli.assertUsageError(cli.run("ls", "widgets", "-u", redis.uri()),
                "unknown kind 'widgets': use locks, elections, queues, signals or semaphores", "coordis ls");
        cli.assertUsageError(cli.run("inspect", "widget", "x", "-u", redis.uri()),
                "unknown kind 'widget': use lock, election, queue, signal or semaphore", "coordis inspect");
        cli.assertUsageError(cli.run("ls", "--match", "app:[x", "-u", redis.uri()),
                "--match: bad match pattern 'app:[x': the '[' at position 5 has no closing ']'", "coordis ls");
        cli.assertUsageError(cli.run("ls", "-o", "yaml", "-u", redis.uri()),
                "unknown output format 'yaml': use text or json", "coordis ls");
        cli.assertUsageError(cli.run("ls", "--watch", "10ms", "-u", redis.uri()), "--watch must be at least 100ms",
                "coordis ls");
        cli.assertUsageError(cli.run("inspect", "lock", " ", "-u", redis.uri()), "lock name must not be blank",
                "coordis inspect");

        assertThat(cli.run("inspect", "lock", "ls:nothing", "-u", redis.uri())).isEqualTo(1);
        assertThat(cli.out()).isEmpty();
        assertThat(cli.err()).startsWith("coordis: no lock '" + Prefixed.key("ls:nothing") + "'").hasLineCount(1);
        assertThat(raw.command("LRANGE", Prefixed.key("ls:list"), "0", "-1")).as("nothing lost")
                .isEqualTo(List.of("x"));
        assertThat(raw.command("GET", Prefixed.key("ls:lock"))).isEqualTo("t");
    }

    @Test
    void redisDownExits69() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        assertThat(cli.run("ls", "-u", "redis://127.0.0.1:" + port)).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(cli.out()).isEmpty();
        assertThat(cli.err()).startsWith("coordis: ").hasLineCount(1).contains("127.0.0.1:" + port);
        assertThat(cli.run("inspect", "lock", "x", "-u", "redis://127.0.0.1:" + port)).isEqualTo(ExitCodes.UNAVAILABLE);
    }

    @Test
    void watchRedrawsEveryIntervalAndCtrlCEndsItQuietlyWith130() {
        raw.command("SET", Prefixed.key("ls:w"), "t", "NX", "PX", "60000");
        try (CliProcess watch = CliProcess.start("ls", "locks", "-o", "json", "--watch", "300ms", "-u", redis.uri())) {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (watch.stdout().lines().count() < 2 && System.nanoTime() < deadline) {
                CliProcess.sleep(50);
            }
            raw.command("SET", Prefixed.key("ls:w2"), "t", "NX", "PX", "60000");
            long seen = watch.stdout().lines().count();
            while (watch.stdout().lines().count() < seen + 2 && System.nanoTime() < deadline) {
                CliProcess.sleep(50);
            }
            watch.interrupt();
            assertThat(watch.exitCode()).isEqualTo(130);
            List<String> frames = watch.stdout().lines().toList();
            assertThat(frames.size()).as(watch.stdout()).isGreaterThanOrEqualTo(3);
            assertThat(byName(TestJson.object(frames.get(0)), "name")).containsOnlyKeys(Prefixed.key("ls:w"));
            assertThat(byName(TestJson.object(frames.get(frames.size() - 1)), "name")).as("a later frame sees the new lock")
                    .containsOnlyKeys(Prefixed.key("ls:w"), Prefixed.key("ls:w2"));
            assertThat(watch.stderr()).isEmpty();
        }
    }
}
