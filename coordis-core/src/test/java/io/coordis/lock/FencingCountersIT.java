package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A name's fencing numbers strictly rise though its counter does not outlive its use: many names, several clients,
 * one referee per name ({@link FencedResource}, which counts an entry whose number is not above every earlier one
 * as a regression), through four phases: counters kept, counters expired after a retention of a second, counters
 * deleted by hand, and Redis killed and restarted from its append-only file. A lock whose counter starts again at 1
 * once deleted (the per-name counter without the clock floor) is caught by the same referees.
 */
class FencingCountersIT {
    private static final int NAMES = 8;
    private static final int CLIENTS = 3;
    private static final int ROUNDS = 4;
    private static final Duration RETENTION = Duration.ofSeconds(1);
    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(Duration.ofSeconds(10))
            .withCounterRetention(RETENTION);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.of(RedisServer.builder().appendOnly(true)
            .appendFsync("always"));

    private static String name(int i) {
        return "fencing:" + i;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void numbersRiseAcrossExpiryDeletionAndRestart() throws Exception {
        List<FencedResource> referees = new ArrayList<>();
        List<Coordis> clients = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            for (int i = 0; i < NAMES; i++) {
                referees.add(FencedResource.recording());
            }
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(TestClients.connect(redis.uri()));
            }
            rounds(pool, clients, referees); // counters kept
            await().atMost(Duration.ofSeconds(30)).until(() -> countersLeft() == 0); // expired after the retention
            rounds(pool, clients, referees);
            assertThat(countersLeft()).as("counters of the names just used").isEqualTo(NAMES);
            for (int i = 0; i < NAMES; i++) {
                redis.server().command("DEL", Prefixed.derived(name(i), "fence")); // removed by hand
            }
            rounds(pool, clients, referees);
            redis.server().restart(Duration.ZERO); // kill -9; the append-only file brings the counters back
            rounds(pool, clients, referees);
        } finally {
            pool.shutdownNow();
            for (Coordis c : clients) {
                c.close();
            }
            referees.forEach(FencedResource::close);
        }
        for (int i = 0; i < NAMES; i++) {
            FencedResource.Report report = referees.get(i).report();
            assertThat(report.totalEnters()).as("entries for %s", name(i)).isEqualTo(4 * CLIENTS * ROUNDS);
            assertThat(report.fenceRegressions()).as("regressions for %s: %s", name(i), report).isZero();
            assertThat(report.violations()).as("violations for %s", name(i)).isZero();
            assertThat(report.overlaps()).as("overlaps for %s", name(i)).isZero();
        }
    }

    /** The counter that restarts at 1 once deleted: the broken variant the referees must catch. */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aCounterThatStartsAgainAtOneIsCaught() throws Exception {
        String broken = "redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', 10000) "
                + "return redis.call('INCR', KEYS[2])";
        FencedResource referee = FencedResource.recording();
        try (RespClient raw = RespClient.connect(redis.server())) {
            String key = Prefixed.key("fencing:broken");
            String counter = Prefixed.derived("fencing:broken", "fence");
            for (int round = 0; round < 2; round++) {
                for (int i = 0; i < 3; i++) {
                    long fence = (Long) raw.command("EVAL", broken, "2", key, counter, "t" + round + i);
                    referee.enter("broken", fence);
                    referee.exit("broken", fence);
                    raw.command("DEL", key);
                }
                raw.command("DEL", counter); // what expiry or a restart without the clock floor would do
            }
        } finally {
            referee.close();
        }
        assertThat(referee.report().fenceRegressions()).as("the broken counter's numbers go back").isPositive();
    }

    /** Each client takes each name {@link #ROUNDS} times, entering the name's referee with the lease's number. */
    private static void rounds(ExecutorService pool, List<Coordis> clients, List<FencedResource> referees)
            throws Exception {
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            Coordis client = clients.get(c);
            String id = "client-" + c;
            running.add(pool.submit(() -> {
                for (int round = 0; round < ROUNDS; round++) {
                    for (int i = 0; i < NAMES; i++) {
                        Lease lease = client.lock(name(i), OPTIONS).acquire(Duration.ofSeconds(30)).orElseThrow();
                        referees.get(i).enter(id, lease.fencingToken());
                        referees.get(i).write(id, lease.fencingToken());
                        referees.get(i).exit(id, lease.fencingToken());
                        assertThat(lease.release()).isTrue();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get(60, TimeUnit.SECONDS);
        }
    }

    private static long countersLeft() {
        long left = 0;
        for (int i = 0; i < NAMES; i++) {
            left += (Long) redis.server().command("EXISTS", Prefixed.derived(name(i), "fence"));
        }
        return left;
    }
}
