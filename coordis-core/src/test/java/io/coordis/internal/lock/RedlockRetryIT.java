package io.coordis.internal.lock;

import io.coordis.Coordis;
import io.coordis.NodeVote;
import io.coordis.Telemetry;
import io.coordis.TestClients;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redlock's retries, measured: with another value on a majority of three masters, each acquire round is seen by
 * the client's {@link Telemetry} (one {@code redlockVotes} call per decided round, timed here) and by the free node
 * (one fencing number taken per round it granted). The pause between rounds is drawn from [retryDelay/2,
 * retryDelay]; rounds also take time, so a gap between two decided rounds is never below retryDelay/2 and is
 * allowed generous scheduling slack above retryDelay.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedlockRetryIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    private static final Duration RETRY_DELAY = Duration.ofMillis(200);
    private static final int RETRY_COUNT = 3;
    private static final LockOptions OPTIONS = LockOptions.defaults().withRestartGuard(false)
            .withRetryCount(RETRY_COUNT).withRetryDelay(RETRY_DELAY);
    /** What a loaded 2-core machine may add to a pause and a round. */
    private static final Duration SLACK = Duration.ofMillis(500);

    /** One decided acquire round: when the client knew its outcome, and the votes. */
    private record Round(String lock, long nanos, List<NodeVote> votes) {
    }

    private final List<Round> rounds = new CopyOnWriteArrayList<>();
    private Coordis client;

    @BeforeEach
    void connect() throws InterruptedException {
        client = TestClients.builder().urls(redis.uris()).telemetry(new Telemetry() {
            @Override
            public void redlockVotes(String lock, List<NodeVote> votes) {
                rounds.add(new Round(lock, System.nanoTime(), votes));
            }
        }).connect();
        RedlockNodes.warmUp(client, 3);
    }

    @AfterEach
    void close() {
        client.close();
    }

    /** Another value on the first two of the three masters: a majority, for a minute. */
    private static void holdMajority(String name) {
        for (RedisServer s : redis.servers().subList(0, 2)) {
            assertThat(s.command("SET", Prefixed.key(name), "theirs", "PX", "60000")).isEqualTo("OK");
        }
    }

    private List<Round> roundsOf(String name) {
        return rounds.stream().filter(r -> r.lock().equals(name)).toList();
    }

    private static List<Long> gapsMillis(List<Round> rounds) {
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < rounds.size(); i++) {
            gaps.add(TimeUnit.NANOSECONDS.toMillis(rounds.get(i).nanos() - rounds.get(i - 1).nanos()));
        }
        return gaps;
    }

    @Test
    void acquireWithAWaitMakesOneRoundPlusRetryCountPacedByTheRetryDelayThenGivesUpWithTimeLeft() throws Exception {
        String name = "retry:timed";
        holdMajority(name);
        RedisServer free = redis.servers().get(2);
        long numbersBefore = incrbyCalls(free);

        long start = System.nanoTime();
        Optional<Lease> got = client.lock(name, OPTIONS).acquire(Duration.ofSeconds(30));
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        List<Round> seen = roundsOf(name);
        List<Long> gaps = gapsMillis(seen);
        System.out.printf("acquire(30 s), retryCount %d, retryDelay %d ms: %d rounds, gaps %s ms, empty after %d ms%n",
                RETRY_COUNT, RETRY_DELAY.toMillis(), seen.size(), gaps, took.toMillis());
        assertThat(got).as("a majority holds another value").isEmpty();
        assertThat(seen).as("rounds: the first and %d retries", RETRY_COUNT).hasSize(1 + RETRY_COUNT);
        assertThat(seen).allSatisfy(r -> assertThat(r.votes()).extracting(NodeVote::vote).startsWith(
                NodeVote.Vote.HELD_BY_OTHER, NodeVote.Vote.HELD_BY_OTHER));
        // the free node granted every round once: one fencing number each (the refused rounds' releases take none)
        assertThat(incrbyCalls(free) - numbersBefore).as("rounds the free node granted").isEqualTo(1 + RETRY_COUNT);
        assertThat(gaps).as("gaps between decided rounds (ms)").allSatisfy(gap -> assertThat(gap)
                .isGreaterThanOrEqualTo(RETRY_DELAY.toMillis() / 2)
                .isLessThanOrEqualTo(RETRY_DELAY.plus(SLACK).toMillis()));
        // the retries are spent long before the wait: acquire(wait) then answers empty with time left
        assertThat(took).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void tryAcquireMakesOneRoundWhateverTheRetryCount() {
        String name = "retry:once";
        holdMajority(name);
        assertThat(client.lock(name, OPTIONS).tryAcquire()).isEmpty();
        assertThat(roundsOf(name)).hasSize(1);
    }

    /**
     * {@code acquire()} without a wait is not bounded by the retry count: once the retries are spent it lines up
     * again with a fresh count, and gets the lock once the other value is gone.
     */
    @Test
    void acquireWithoutAWaitGoesOnPastTheRetryCountUntilGranted() throws Exception {
        String name = "retry:untimed";
        holdMajority(name);
        DistributedLock lock = client.lock(name, OPTIONS);
        CompletableFuture<Lease> waiting = lock.acquireAsync();
        try {
            int beyond = 3 * (1 + RETRY_COUNT);
            await().atMost(Duration.ofSeconds(30)).until(() -> roundsOf(name).size() >= beyond);
            assertThat(waiting).isNotDone();
            List<Long> gaps = gapsMillis(roundsOf(name));
            System.out.printf("acquire(), retryCount %d: gaps between its first %d rounds %s ms%n", RETRY_COUNT,
                    gaps.size() + 1, gaps);
            assertThat(gaps).as("gaps between decided rounds (ms)").allSatisfy(gap -> assertThat(gap)
                    .isLessThanOrEqualTo(RETRY_DELAY.plus(SLACK).toMillis()));

            for (RedisServer s : redis.servers().subList(0, 2)) {
                s.command("DEL", Prefixed.key(name));
            }
            Lease lease = waiting.get(10, TimeUnit.SECONDS);
            for (RedisServer s : redis.servers()) {
                assertThat(s.command("GET", Prefixed.key(name))).isEqualTo(lease.token());
            }
            lease.release();
        } finally {
            waiting.cancel(true);
        }
    }

    /** {@code INCRBY}s {@code server} has run (the acquire script's fencing number, only when it grants). */
    private static long incrbyCalls(RedisServer server) {
        String stats = server.info("commandstats").getOrDefault("cmdstat_incrby", "calls=0,");
        Matcher m = Pattern.compile("calls=(\\d+)").matcher(stats);
        assertThat(m.find()).as(stats).isTrue();
        return Long.parseLong(m.group(1));
    }
}
