package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * node-redlock and Coordis's Redlock on the same five independent masters and one name, taking turns under the
 * fenced resource: neither lets the other in while it holds (0 overlaps among holders that were never paused), and
 * Coordis's fencing numbers rise across the turns node-redlock took between them.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ForeignRedlockIT {
    private static final int NODE_HOLDS = 30;
    /**
     * The masters have just started: without the guard's wait a new node votes at once. A node timeout above the
     * 50 ms default keeps a loaded machine's slow replies votes rather than timeouts.
     */
    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(Duration.ofSeconds(5))
            .withRestartGuard(false).withNodeTimeout(Duration.ofMillis(500));

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(5);

    private static Coordis connect() {
        return TestClients.builder().urls(redis.uris()).connect();
    }

    @Test
    void nodeRedlockAndCoordisRedlockExcludeEachOtherOnFiveMasters() throws Exception {
        String name = "interop:redlock";
        Map<String, String> login = ForeignClient.login(redis.servers());
        ForeignClient.requireNode();
        String masters = redis.servers().stream().map(RedisServer::address).collect(Collectors.joining(","));
        ExecutorService pool = Executors.newCachedThreadPool();
        AtomicBoolean foreignDone = new AtomicBoolean();
        try (FencedResource resource = FencedResource.recording()) {
            List<Future<Integer>> library = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                // a pause after each hold leaves the name free between them, so that node-redlock, which only
                // polls, is not starved by two Coordis clients waking each other on release
                library.add(pool.submit(ForeignLockIT.libraryHolder(ForeignRedlockIT::connect, OPTIONS, resource, name,
                        "lib-" + i, 15, foreignDone::get)));
            }
            ForeignLockIT.awaitFirstHold(resource, "lib-1");
            try (ForeignClient node1 = node(login, masters, resource, name, "node-1");
                 ForeignClient node2 = node(login, masters, resource, name, "node-2")) {
                Map<String, Object> n1 = node1.done();
                Map<String, Object> n2 = node2.done();
                foreignDone.set(true);
                int libraryHolds = 0;
                for (Future<Integer> f : library) {
                    libraryHolds += f.get(30, TimeUnit.SECONDS);
                }

                FencedResource.Report report = resource.report();
                System.out.printf("interop redlock: %d holds (Coordis %d, node-redlock %s+%s), overlaps %d, "
                                + "violations %d, stale %d%n", report.totalEnters(), libraryHolds, n1.get("held"),
                        n2.get("held"), report.overlaps(), report.violations(), report.staleRejections());
                assertThat(n1).containsEntry("held", (long) NODE_HOLDS).containsEntry("lost", 0L);
                assertThat(n2).containsEntry("held", (long) NODE_HOLDS).containsEntry("lost", 0L);
                assertThat(libraryHolds).as("Coordis's holders took turns too").isPositive();
                assertThat(report.overlaps()).as("holders inside at once: %s", report.notes()).isZero();
                assertThat(report.violations()).as("%s", report.notes()).isZero();
                assertThat(report.staleRejections()).as("%s", report.notes()).isZero();
                assertThat(report.protocolErrors()).as("%s", report.notes()).isZero();
                ForeignLockIT.assertCoordisTokensRise(resource);
            }
        } finally {
            foreignDone.set(true);
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static ForeignClient node(Map<String, String> login, String masters, FencedResource resource, String name,
                                      String client) {
        return ForeignClient.nodeRedlock(login, "--redis", masters, "--name", Prefixed.key(name), "--holds",
                Integer.toString(NODE_HOLDS), "--ttl-ms", "5000", "--fenced", resource.address(), "--client", client);
    }
}
