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

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** Campaigns without a thread: campaignAsync wins on a resignation, times out, and a cancel leaves nothing held. */
class AsyncCampaignIT {
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

    private static ElectionOptions options(String id) {
        return ElectionOptions.defaults().withCandidateId(id).withTtl(Duration.ofSeconds(10));
    }

    private static Object leader(String name) {
        return redis.server().command("GET", Prefixed.key(name));
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void winsWhenTheLeaderResignsOnTheCallbackExecutor() throws Exception {
        LeaderElection ea = a.election("async:el:resign", options("alpha"));
        LeaderElection eb = b.election("async:el:resign", options("beta"));
        Leadership first = ea.campaign(Duration.ofSeconds(5)).orElseThrow();

        CompletableFuture<Optional<Leadership>> waiting = eb.campaignAsync(Duration.ofSeconds(15));
        CompletableFuture<String> thread = waiting.thenApply(l -> Thread.currentThread().getName());
        Thread.sleep(100);
        assertThat(waiting).isNotDone();
        long start = System.nanoTime();
        first.resign();

        // waited for through the dependent: a thread blocked in get() may run the future's dependents itself
        assertThat(thread.get(5, TimeUnit.SECONDS)).startsWith("coordis-callback");
        Leadership won = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
        assertThat(won.term()).isGreaterThan(first.term());
        assertThat(won.isHeld()).isTrue();
        assertThat(leader("async:el:resign")).isEqualTo("beta");
        assertThat(eb.campaignAsync(Duration.ZERO).get(5, TimeUnit.SECONDS)).as("leads already").contains(won);
        won.resign();
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS)
    void timesOutAsEmptyWhileAnotherLeads() throws Exception {
        LeaderElection ea = a.election("async:el:busy", options("alpha"));
        LeaderElection eb = b.election("async:el:busy", options("beta"));
        Leadership held = ea.campaign(Duration.ofSeconds(5)).orElseThrow();
        long start = System.nanoTime();
        assertThat(eb.campaignAsync(Duration.ofMillis(300)).get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(290L, 2_000L);
        assertThat(eb.campaignAsync(Duration.ZERO).get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat(held.isHeld()).isTrue();
        held.resign();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aCancelRacingTheWinNeverLeavesALeadershipHeld() throws Exception {
        String name = "async:el:race";
        LeaderElection ea = a.election(name, options("alpha"));
        LeaderElection eb = b.election(name, options("beta"));
        int cancelled = 0;
        int won = 0;
        for (int i = 0; i < 200; i++) {
            Leadership alpha = electedOverNothingHeld(ea, eb, name);
            CompletableFuture<Optional<Leadership>> waiting = eb.campaignAsync(Duration.ofSeconds(10));
            if (i % 3 == 0) {
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(2_000_000));
            }
            CompletableFuture<Boolean> resigned = CompletableFuture.supplyAsync(alpha::resign);
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(1_000_000));
            if (waiting.cancel(true)) {
                cancelled++;
            } else {
                Leadership beta = waiting.get(5, TimeUnit.SECONDS).orElseThrow();
                won++;
                beta.resign();
            }
            resigned.get(5, TimeUnit.SECONDS);
        }
        assertThat(cancelled).isPositive();
        electedOverNothingHeld(ea, eb, name).resign(); // the last round's abandoned win too
        System.out.printf("campaign cancel race: %d cancelled, %d won first%n", cancelled, won);
    }

    /**
     * Alpha elected, after which beta holds nothing, here or at Redis. Beta's abandoned wins are resigned in the
     * background (and a try of beta's may still be out when its campaign is cancelled), so a check at once would race
     * them; alpha's election waits for them, within a bound well inside beta's 10 s TTL, so that a leadership left
     * held fails it instead of expiring.
     */
    private static Leadership electedOverNothingHeld(LeaderElection ea, LeaderElection eb, String name)
            throws InterruptedException {
        Leadership alpha = ea.campaign(Duration.ofSeconds(3)).orElseThrow(
                () -> new AssertionError("a cancelled campaign left its leadership held: " + leader(name)));
        assertThat(eb.leadership()).as("beta's leadership once alpha is elected").isEmpty();
        assertThat(leader(name)).isNotEqualTo("beta");
        return alpha;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHundredCandidatesCampaignAtOnceEachLeadsOnceAndAloneOnAFewThreads() throws Exception {
        String name = "async:el:many";
        int n = 100;
        ExecutorService resigner = Executors.newFixedThreadPool(2);
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        AtomicInteger leading = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        List<CompletableFuture<Long>> terms = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                LeaderElection e = (i % 2 == 0 ? a : b).election(name, options("c" + i));
                terms.add(e.campaignAsync(Duration.ofSeconds(40)).thenApplyAsync(l -> {
                    Leadership leadership = l.orElseThrow();
                    if (leading.incrementAndGet() != 1) {
                        overlaps.incrementAndGet();
                    }
                    LockSupport.parkNanos(1_000_000);
                    leading.decrementAndGet();
                    leadership.resign();
                    return leadership.term();
                }, resigner));
            }
            CompletableFuture.allOf(terms.toArray(CompletableFuture[]::new)).get(45, TimeUnit.SECONDS);
            assertThat(overlaps.get()).isZero();
            assertThat(terms.stream().map(CompletableFuture::join).distinct().count()).isEqualTo(n);
            // with the callback thread of each of the two clients
            assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore).isLessThanOrEqualTo(10);
        } finally {
            resigner.shutdownNow();
        }
    }
}
