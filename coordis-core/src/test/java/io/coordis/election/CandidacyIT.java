package io.coordis.election;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A candidacy against a real Redis: granted, revoked when its lease is lost (key deleted, server paused) and granted
 * again, handed over on close, and no thread of its own.
 */
class CandidacyIT {
    private static final Duration LONG_TTL = Duration.ofSeconds(10);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis a;
    private Coordis b;

    @BeforeEach
    void connect() {
        a = TestClients.connect(redis.uri());
        b = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    private static ElectionOptions options(String id, Duration ttl) {
        return ElectionOptions.defaults().withCandidateId(id).withTtl(ttl);
    }

    private static Object leader(String name) {
        return redis.server().command("GET", Prefixed.key(name));
    }

    /** What a listener was told, in order: {@code granted 7}, {@code revoked 7}, and the threads it was told on. */
    private static final class Calls implements CandidacyListener {
        final BlockingQueue<String> calls = new LinkedBlockingQueue<>();
        final Set<String> threads = ConcurrentHashMap.newKeySet();

        @Override
        public void granted(Leadership leadership) {
            threads.add(Thread.currentThread().getName());
            calls.add("granted " + leadership.term());
        }

        @Override
        public void revoked(Leadership leadership) {
            threads.add(Thread.currentThread().getName());
            calls.add("revoked " + leadership.term());
        }

        String next() throws InterruptedException {
            String call = calls.poll(5, TimeUnit.SECONDS);
            assertThat(call).as("a call within 5s").isNotNull();
            return call;
        }

        long nextGranted() throws InterruptedException {
            String call = next();
            assertThat(call).startsWith("granted ");
            return Long.parseLong(call.substring("granted ".length()));
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void grantedAndTheOtherCandidateTakesOverAtOnceWhenClosed() throws Exception {
        LeaderElection ea = a.election("cand:handover", options("alpha", LONG_TTL));
        LeaderElection eb = b.election("cand:handover", options("beta", LONG_TTL));
        Calls alpha = new Calls();
        Calls beta = new Calls();
        Candidacy first = ea.candidacy(alpha);
        long term = alpha.nextGranted();
        assertThat(first.leadership().map(Leadership::term)).contains(term);
        assertThat(alpha.threads).allMatch(t -> t.startsWith("coordis-callback"));
        assertThat(leader("cand:handover")).isEqualTo("alpha");

        long next;
        try (Candidacy second = eb.candidacy(beta)) {
            assertThat(beta.calls.poll(300, TimeUnit.MILLISECONDS)).as("beta waits while alpha leads").isNull();
            assertThat(second.isLeader()).isFalse();
            long closed = System.nanoTime();
            first.close();
            assertThat(alpha.calls.poll()).as("revoked before close returned").isEqualTo("revoked " + term);
            assertThat(first.isLeader()).isFalse();
            next = beta.nextGranted();
            assertThat(Duration.ofNanos(System.nanoTime() - closed)).as("a resignation, not the TTL")
                    .isLessThan(Duration.ofSeconds(3));
            assertThat(next).isGreaterThan(term);
            assertThat(leader("cand:handover")).isEqualTo("beta");
        }
        assertThat(beta.calls.poll()).as("revoked before close returned").isEqualTo("revoked " + next);
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void revokedWhenTheKeyIsDeletedThenGrantedAgain() throws Exception {
        LeaderElection election = a.election("cand:deleted", options("alpha", Duration.ofSeconds(1)));
        Calls alpha = new Calls();
        try (Candidacy candidacy = election.candidacy(alpha)) {
            long first = alpha.nextGranted();
            redis.server().command("DEL", Prefixed.key("cand:deleted"));
            assertThat(alpha.next()).isEqualTo("revoked " + first);
            long second = alpha.nextGranted();
            assertThat(second).isGreaterThan(first);
            assertThat(candidacy.leadership().map(Leadership::term)).contains(second);
            assertThat(leader("cand:deleted")).isEqualTo("alpha");
        }
        assertThat(alpha.calls.poll()).isEqualTo("revoked " + election.highestTermSeen());
        assertThat(leader("cand:deleted")).as("resigned on close").isNull();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void revokedWhenTheServerPausesPastTheTtlThenGrantedAgain() throws Exception {
        LeaderElection election = a.election("cand:paused", options("alpha", Duration.ofSeconds(1)));
        Calls alpha = new Calls();
        try (Candidacy candidacy = election.candidacy(alpha)) {
            long first = alpha.nextGranted();
            redis.server().pause();
            try {
                assertThat(alpha.next()).as("revoked within the validity, while Redis is away")
                        .isEqualTo("revoked " + first);
                assertThat(candidacy.isLeader()).isFalse();
                Thread.sleep(700); // past the TTL at Redis too
            } finally {
                redis.server().resume();
            }
            long second = alpha.nextGranted();
            assertThat(second).isGreaterThan(first);
            assertThat(candidacy.isLeader()).isTrue();
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void closeResignsAndStopsCampaigning() throws Exception {
        LeaderElection ea = a.election("cand:stop", options("alpha", LONG_TTL));
        LeaderElection eb = b.election("cand:stop", options("beta", LONG_TTL));
        Calls alpha = new Calls();
        Candidacy candidacy = ea.candidacy(alpha);
        long term = alpha.nextGranted();
        candidacy.close();
        candidacy.close(); // idempotent
        assertThat(alpha.calls.poll()).isEqualTo("revoked " + term);
        assertThat(leader("cand:stop")).as("resigned at once").isNull();

        Leadership other = eb.campaign(Duration.ofSeconds(5)).orElseThrow();
        other.resign();
        Thread.sleep(500);
        assertThat(leader("cand:stop")).as("a closed candidacy does not campaign").isNull();
        assertThat(alpha.calls).isEmpty();
        candidacy.resign(Duration.ZERO); // does nothing once closed
        assertThat(alpha.calls).isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void closedWhileCampaigningItNeverLeads() throws Exception {
        LeaderElection ea = a.election("cand:waiting", options("alpha", LONG_TTL));
        LeaderElection eb = b.election("cand:waiting", options("beta", LONG_TTL));
        Leadership other = eb.campaign(Duration.ofSeconds(5)).orElseThrow();
        Calls alpha = new Calls();
        Candidacy candidacy = ea.candidacy(alpha);
        Thread.sleep(200);
        candidacy.close();
        other.resign();
        Thread.sleep(500);
        assertThat(leader("cand:waiting")).isNull();
        assertThat(alpha.calls).isEmpty();
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void resignRevokesStandsAsideAndCampaignsAgain() throws Exception {
        LeaderElection ea = a.election("cand:yield", options("alpha", LONG_TTL));
        LeaderElection eb = b.election("cand:yield", options("beta", LONG_TTL));
        Calls alpha = new Calls();
        Calls beta = new Calls();
        try (Candidacy first = ea.candidacy(alpha)) {
            long term = alpha.nextGranted();
            try (Candidacy second = eb.candidacy(beta)) {
                Thread.sleep(100);
                first.resign(Duration.ofSeconds(1));
                assertThat(alpha.next()).isEqualTo("revoked " + term);
                long taken = beta.nextGranted();
                assertThat(taken).isGreaterThan(term);
                assertThat(second.isLeader()).isTrue();
                assertThat(alpha.calls.poll(300, TimeUnit.MILLISECONDS)).as("alpha does not take it back").isNull();
            }
            assertThat(beta.next()).startsWith("revoked ");
            assertThat(alpha.nextGranted()).as("alpha campaigns again after standing aside").isGreaterThan(term);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void noThreadOfItsOwnAndNoneLeftBehind() throws Exception {
        LeaderElection ea = a.election("cand:threads", options("alpha", Duration.ofSeconds(1)));
        LeaderElection eb = b.election("cand:threads", options("beta", Duration.ofSeconds(1)));
        // the clients' threads start on first use: a contested campaign (pub/sub) and a callback
        Leadership warm = eb.campaign(Duration.ofSeconds(5)).orElseThrow();
        CompletableFuture<Optional<Leadership>> waiting = ea.campaignAsync(Duration.ofSeconds(5));
        Thread.sleep(200);
        warm.resign();
        waiting.get(5, TimeUnit.SECONDS).orElseThrow().resign();
        Set<Thread> before = liveThreads();

        Calls alpha = new Calls();
        try (Candidacy candidacy = ea.candidacy(alpha)) {
            long first = alpha.nextGranted();
            assertThat(newThreads(before)).as("while leading").isEmpty();
            redis.server().command("DEL", Prefixed.key("cand:threads"));
            assertThat(alpha.next()).isEqualTo("revoked " + first);
            alpha.nextGranted();
            assertThat(candidacy.isLeader()).isTrue();
        }
        // awaited by hand: a poll of Awaitility's would start a thread of its own
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        while (!newThreads(before).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(newThreads(before)).as("after close").isEmpty();
        assertThat(alpha.threads).allMatch(t -> t.startsWith("coordis-callback"));
    }

    private static Set<Thread> liveThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).collect(Collectors.toSet());
    }

    private static List<String> newThreads(Set<Thread> before) {
        Set<Thread> now = new HashSet<>(liveThreads());
        now.removeAll(before);
        return now.stream().map(Thread::getName).sorted().toList();
    }
}
