package io.coordis.inspect;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.internal.Hosts;
import io.coordis.lock.AuditEntry;
import io.coordis.lock.ForcedUnlock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The Java read API against a real redis-server: flags, read-only reads, and globs that agree with Redis. */
class InspectorIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis coordis;
    private Inspector inspector;
    private RespClient raw;

    @BeforeEach
    void connect() {
        coordis = TestClients.connect(redis.uri());
        inspector = coordis.inspector();
        raw = RespClient.connect(redis.server());
    }

    @AfterEach
    void disconnect() {
        raw.close();
        coordis.close();
    }

    @Test
    void flagsALeaseWhoseRenewalIsLateButNotOneTheWatchdogKeeps() throws Exception {
        try (Lease kept = coordis.lock("in:kept", LockOptions.defaults().withTtl(Duration.ofSeconds(6))).tryAcquire()
                .orElseThrow();
             Lease fixed = coordis.lock("in:fixed", LockOptions.defaults().withTtl(Duration.ofSeconds(4))
                     .withAutoRenew(false)).tryAcquire().orElseThrow()) {
            Thread.sleep(2_500); // past a third of each TTL: the watchdog renewed 'kept', nothing renewed 'fixed'
            LockState k = inspector.lock(Prefixed.key("in:kept")).orElseThrow();
            LockState f = inspector.lock(Prefixed.key("in:fixed")).orElseThrow();
            assertThat(k.leaseTtl()).contains(Duration.ofSeconds(6));
            assertThat(k.flags()).as("%s", k).isEmpty();
            assertThat(f.leaseTtl()).contains(Duration.ofSeconds(4));
            assertThat(f.flags()).as("%s", f).contains(LockState.Flag.NOT_RENEWED);
            assertThat(kept.isHeld()).isTrue();
            assertThat(fixed.isHeld()).isTrue();
        }
    }

    @Test
    void flagsForeignLocksWithoutExpiryAndSoonExpiring() throws Exception {
        raw.command("SET", Prefixed.key("in:forever"), "tok", "NX");
        // no TTL, not a timestamp, but Coordis has a counter for it
        raw.command("SET", Prefixed.key("in:fence-only"), "tok");
        raw.command("SET", Prefixed.derived("in:fence-only", "fence"), "7");
        raw.command("SET", Prefixed.key("in:soon"), "tok", "NX", "PX", "600");
        List<LockState> locks = inspector.locks(Prefixed.key("in:*"));
        assertThat(locks).extracting(LockState::name).containsExactly(Prefixed.key("in:fence-only"),
                Prefixed.key("in:soon"));
        LockState fenced = locks.get(0);
        assertThat(fenced.flags()).containsExactlyInAnyOrder(LockState.Flag.FOREIGN, LockState.Flag.NO_EXPIRY);
        assertThat(fenced.fenceCounter()).hasValue(7);
        assertThat(fenced.fencingToken()).isEmpty();
        assertThat(locks.get(1).flags()).containsExactlyInAnyOrder(LockState.Flag.FOREIGN, LockState.Flag.EXPIRING_SOON);
        assertThat(inspector.lock(Prefixed.key("in:forever")))
                .as("asked by name, any string is read as a lock; ls leaves it out")
                .hasValueSatisfying(l -> assertThat(l.flags()).containsExactlyInAnyOrder(LockState.Flag.FOREIGN,
                        LockState.Flag.NO_EXPIRY));
    }

    @Test
    void readsChangeNothingAndDoNotRestartTheInFlightClock() throws Exception {
        ReliableQueue queue = coordis.reliableQueue("in:jobs");
        queue.push("a");
        queue.push("b");
        try (Consumer consumer = queue.consumer()) {
            Delivery d = consumer.take(Duration.ofSeconds(5)).orElseThrow();
            Object before = raw.command("DBSIZE");
            long deadline = System.nanoTime() + Duration.ofMillis(3_200).toNanos();
            while (System.nanoTime() < deadline) {
                inspector.queues(Prefixed.key("*"));
                inspector.locks(Prefixed.key("*"));
                inspector.signals(Prefixed.key("*"));
                Thread.sleep(150);
            }
            QueueState q = inspector.queue(Prefixed.key("in:jobs")).orElseThrow();
            assertThat(q.inFlight()).isEqualTo(1);
            assertThat(q.oldestInFlightAge()).as("reads do not touch the slot").hasValueSatisfying(
                    age -> assertThat(age).isGreaterThanOrEqualTo(Duration.ofSeconds(2)));
            assertThat(raw.command("DBSIZE")).isEqualTo(before);
            d.ack();
        }
    }

    @Test
    void auditEntriesAreDecodedByRedisAndOnesItCannotReadKeptRaw() throws Exception {
        long before = System.currentTimeMillis();
        String reason = "said \"stop\"\nthen left \u00e9\\";
        Lease lease = coordis.lock("in:audited", LockOptions.defaults().withHolderId("dave@db2:17")).tryAcquire()
                .orElseThrow();
        ForcedUnlock forced = coordis.lock("in:audited").forceUnlock(reason).orElseThrow();
        assertThat(lease.release()).isFalse();
        List<String> foreign = List.of("{\"at\":1700000000000,\"by\":\"x\\\"y\\u0041\"}",
                "{\"at\":\"yesterday\",\"fence\":1.5,\"by\":7,\"holder\":null,\"action\":\"force-unlock\"}",
                "{\"fence\":12345678901234567890}", "garbage", "{\"at\":1", "[1,2]", "42", "null", "",
                "[".repeat(2000) + "]".repeat(2000));
        for (String entry : foreign) {
            raw.command("LPUSH", Prefixed.derived("in:audited", "audit"), entry);
        }

        List<AuditEntry> audit = inspector.lock(Prefixed.key("in:audited")).orElseThrow().audit();
        assertThat(audit).hasSize(foreign.size() + 1);
        AuditEntry written = audit.get(foreign.size());
        assertThat(written.at()).hasValueSatisfying(at -> assertThat(at.toEpochMilli())
                .isBetween(before - 1, System.currentTimeMillis() + 1));
        assertThat(written.by()).contains(Hosts.processId());
        assertThat(written.action()).contains("force-unlock");
        assertThat(written.reason()).contains(reason);
        assertThat(written.holder()).contains("dave@db2:17");
        assertThat(written.fence()).hasValue(forced.fencingToken());
        assertThat(written.raw()).isEqualTo(raw.command("LINDEX", Prefixed.derived("in:audited", "audit"), "-1"));

        List<AuditEntry> others = new ArrayList<>(audit.subList(0, foreign.size()));
        Collections.reverse(others); // oldest first, as pushed
        assertThat(others).extracting(AuditEntry::raw).isEqualTo(foreign);
        assertThat(others.get(0).at()).contains(Instant.ofEpochMilli(1700000000000L));
        assertThat(others.get(0).by()).contains("x\"yA");
        assertThat(others.get(0).action()).isEmpty();
        AuditEntry mistyped = others.get(1);
        assertThat(mistyped.action()).contains("force-unlock");
        assertThat(List.of(mistyped.at(), mistyped.by(), mistyped.holder())).allMatch(Optional::isEmpty);
        assertThat(mistyped.fence()).isEmpty();
        for (AuditEntry unreadable : others.subList(2, others.size())) {
            assertThat(List.of(unreadable.at(), unreadable.by(), unreadable.action(), unreadable.reason(),
                    unreadable.holder())).as(unreadable.raw()).allMatch(Optional::isEmpty);
            assertThat(unreadable.fence()).as(unreadable.raw()).isEmpty();
        }
    }

    /** The README's example, compiled and run. */
    @Test
    void readmeExample() throws Exception {
        try (Lease lease = coordis.lock("orders:42").tryAcquire().orElseThrow()) {
            coordis.reliableQueue("jobs").push("job-1");
            List<String> printed = new ArrayList<>();
            Inspector inspector = coordis.inspector();
            for (LockState lock : inspector.locks(Prefixed.key("orders:*"))) {
                printed.add(lock.name() + " held by " + lock.holderId().orElse("unknown") + ", fence "
                        + lock.fencingToken() + ", flags " + lock.flags());
            }
            inspector.queue(Prefixed.key("jobs"))
                    .ifPresent(q -> printed.add(q.depth() + " ready, oldest " + q.oldestReadyAge()));
            assertThat(printed).hasSize(2);
            assertThat(printed.get(0)).startsWith(Prefixed.key("orders:42") + " held by "
                    + io.coordis.internal.Hosts.processId() + ", fence OptionalLong[" + lease.fencingToken()
                    + "], flags []");
            assertThat(printed.get(1)).startsWith("1 ready, oldest Optional[PT");
        }
    }

    @Test
    void globsMatchWhatRedisMatches() throws Exception {
        List<String> names = List.of("a:1", "a:2", "ab", "a[1]", "a*", "b:1", "A:1", "a:10", "a?", "a\\b");
        for (String n : names) {
            raw.command("SET", Prefixed.key(n), "t", "PX", "60000");
        }
        List<String> patterns = List.of("*", "a:*", "a?", "a:[12]", "a:[^1]*", "[a-b]:1", "a\\*", "a\\?", "a\\[*",
                "*1", "a:1?", "*\\\\*");
        for (String p : patterns) {
            Set<String> redisSays = new HashSet<>();
            String cursor = "0";
            do {
                List<?> page = (List<?>) raw.command("SCAN", cursor, "MATCH", Prefixed.key(p), "COUNT", "1000");
                cursor = (String) page.get(0);
                for (Object k : (List<?>) page.get(1)) {
                    redisSays.add((String) k);
                }
            } while (!cursor.equals("0"));
            Glob glob = Glob.of(Prefixed.key(p));
            Set<String> weSay = new HashSet<>();
            for (String n : names) {
                if (glob.matches(Prefixed.key(n))) {
                    weSay.add(Prefixed.key(n));
                }
            }
            assertThat(weSay).as("pattern %s", p).isEqualTo(redisSays);
            assertThat(new HashSet<>(new ArrayList<>(inspector.locks(Prefixed.key(p)).stream().map(LockState::name)
                    .toList())))
                    .as("ls with %s", p).isEqualTo(redisSays);
        }
    }
}
