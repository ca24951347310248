package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.lock.QuorumUnavailableException;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedClient;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One lock name held in turn by every kind of client at once, under the test kit's fenced resource: Coordis library
 * threads and {@code coordis lock} runs (with their fencing numbers), redis-py's {@code Lock} and node-redlock on
 * the one Redis (without: the resource judges them by overlap). No holder is ever paused, so every overlap would be
 * two holders inside their validity at once. The negative control runs a redis-py lock that takes the name with
 * {@code SET} without {@code NX} beside a Coordis holder; the resource must report the overlaps it causes.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ForeignLockIT {
    private static final int PYTHON_HOLDS = 40;
    private static final int NODE_HOLDS = 40;
    private static final int CLI_CHAINS = 2;
    private static final int CLI_RUNS_PER_CHAIN = 3;

    private static final LockOptions OPTIONS = LockOptions.defaults().withTtl(Duration.ofSeconds(5));

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static Coordis connect() {
        return TestClients.connect(redis.uri());
    }

    @Test
    void coordisLibraryCliRedisPyAndNodeRedlockExcludeEachOtherOnOneName() throws Exception {
        String name = "interop:mixed";
        Map<String, String> login = ForeignClient.login(redis.servers());
        ForeignClient.requirePython();
        ForeignClient.requireNode();
        ExecutorService pool = Executors.newCachedThreadPool();
        AtomicBoolean foreignDone = new AtomicBoolean();
        try (FencedResource resource = FencedResource.recording()) {
            List<Future<Integer>> library = new ArrayList<>();
            for (int i = 1; i <= 2; i++) {
                library.add(pool.submit(libraryHolder(ForeignLockIT::connect, OPTIONS, resource, name, "lib-" + i, 3,
                        foreignDone::get)));
            }
            awaitFirstHold(resource, "lib-1");
            try (ForeignClient py1 = pythonHolder(login, resource, name, "py-1", false, PYTHON_HOLDS);
                 ForeignClient py2 = pythonHolder(login, resource, name, "py-2", false, PYTHON_HOLDS);
                 ForeignClient node = ForeignClient.nodeRedlock(login, "--redis", redis.server().address(), "--name",
                         Prefixed.key(name), "--holds", Integer.toString(NODE_HOLDS), "--ttl-ms", "5000",
                         "--fenced", resource.address(), "--client", "node-1")) {
                List<Future<Integer>> cli = new ArrayList<>();
                for (int chain = 1; chain <= CLI_CHAINS; chain++) {
                    int c = chain;
                    cli.add(pool.submit(() -> cliRuns(resource, name, c)));
                }

                Map<String, Object> p1 = py1.done();
                Map<String, Object> p2 = py2.done();
                Map<String, Object> n = node.done();
                int cliHolds = 0;
                for (Future<Integer> f : cli) {
                    cliHolds += f.get(60, TimeUnit.SECONDS);
                }
                foreignDone.set(true);
                int libraryHolds = 0;
                for (Future<Integer> f : library) {
                    libraryHolds += f.get(30, TimeUnit.SECONDS);
                }

                FencedResource.Report report = resource.report();
                System.out.printf("interop lock: %d holds (library %d, cli %d, redis-py %s+%s, node-redlock %s), "
                                + "overlaps %d, violations %d, stale %d%n", report.totalEnters(), libraryHolds, cliHolds,
                        p1.get("held"), p2.get("held"), n.get("held"), report.overlaps(), report.violations(),
                        report.staleRejections());
                assertThat(p1).containsEntry("held", (long) PYTHON_HOLDS).containsEntry("lost", 0L);
                assertThat(p2).containsEntry("held", (long) PYTHON_HOLDS).containsEntry("lost", 0L);
                assertThat(n).containsEntry("held", (long) NODE_HOLDS).containsEntry("lost", 0L);
                assertThat(cliHolds).isEqualTo(CLI_CHAINS * CLI_RUNS_PER_CHAIN);
                assertThat(libraryHolds).as("the library's threads took turns too").isPositive();
                assertThat(report.overlaps()).as("holders inside at once: %s", report.notes()).isZero();
                assertThat(report.violations()).as("%s", report.notes()).isZero();
                assertThat(report.staleRejections()).as("%s", report.notes()).isZero();
                assertThat(report.protocolErrors()).as("%s", report.notes()).isZero();
                assertThat(report.insideNow()).isEmpty();
                assertCoordisTokensRise(resource);
            }
        } finally {
            foreignDone.set(true);
            pool.shutdownNow();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * The negative control, and its pair: a Coordis holder is inside while a redis-py client tries ten holds. The
     * real {@code Lock} waits for the release (0 overlaps, and the Coordis lease is still its own when released); a
     * lock that takes the name with {@code SET} without {@code NX} barges in, and the referee reports the overlaps.
     */
    @ParameterizedTest(name = "without NX: {0}")
    @ValueSource(booleans = {false, true})
    void aForeignLockWithoutNxBargesInAndTheRefereeCatchesIt(boolean broken) throws Exception {
        String name = "interop:barge-" + broken;
        Map<String, String> login = ForeignClient.login(redis.servers());
        ForeignClient.requirePython();
        try (FencedResource resource = FencedResource.recording();
             Coordis coordis = connect();
             FencedClient inside = FencedClient.connect(resource.address(), "lib-1")) {
            Lease lease = coordis.lock(name, OPTIONS).tryAcquire().orElseThrow();
            inside.enter(lease.fencingToken());
            try (ForeignClient python = pythonHolder(login, resource, name, "py", broken, 10)) {
                python.awaitEvent("started");
                Thread.sleep(500);
                inside.exit(lease.fencingToken());
                boolean stillOurs = lease.release();
                Map<String, Object> done = python.done();

                FencedResource.Report report = resource.report();
                System.out.printf("interop lock, %s: %d holds, overlaps %d, Coordis lease still its own: %s%n",
                        broken ? "SET without NX" : "redis-py Lock", report.totalEnters(), report.overlaps(), stillOurs);
                assertThat(done).containsEntry("held", 10L);
                if (broken) {
                    assertThat(report.overlaps()).as("the referee catches SET without NX").isPositive();
                    assertThat(stillOurs).as("the broken client overwrote the Coordis holder's value").isFalse();
                } else {
                    assertThat(report.overlaps()).as("%s", report.notes()).isZero();
                    assertThat(stillOurs).isTrue();
                    assertThat(resource.events("ENTER").get(1).nanos()).as("redis-py waited for the release")
                            .isGreaterThan(resource.events("EXIT").get(0).nanos());
                }
            }
        }
    }

    /** Waits until {@code client} entered once: the Coordis holders compete from the foreign clients' start on. */
    static void awaitFirstHold(FencedResource resource, String client) throws InterruptedException {
        assertThat(resource.await(0, "ENTER", client, Duration.ofSeconds(20))).as("%s held once", client).isPresent();
    }

    private static ForeignClient pythonHolder(Map<String, String> login, FencedResource resource, String name,
                                              String client, boolean broken, int holds) {
        List<String> args = new ArrayList<>(List.of("lock", "--redis", redis.server().address(), "--name",
                Prefixed.key(name), "--holds", Integer.toString(holds), "--ttl-ms", "5000", "--wait-ms",
                "30000", "--fenced", resource.address(), "--client", client));
        if (broken) {
            args.add("--broken");
        }
        return ForeignClient.python(login, args.toArray(String[]::new));
    }

    /**
     * A Coordis client whose thread takes the lock, enters with its fencing number, writes and leaves, then pauses
     * up to {@code maxPauseMillis}, until {@code stop}; answers how many times it held.
     */
    static Callable<Integer> libraryHolder(Supplier<Coordis> connect, LockOptions options, FencedResource resource,
                                           String name, String client, int maxPauseMillis, BooleanSupplier stop) {
        return () -> {
            int held = 0;
            try (Coordis coordis = connect.get();
                 FencedClient fenced = FencedClient.connect(resource.address(), client)) {
                DistributedLock lock = coordis.lock(name, options);
                while (!stop.getAsBoolean()) {
                    Optional<Lease> acquired;
                    try {
                        acquired = lock.acquire(Duration.ofMillis(500));
                    } catch (QuorumUnavailableException e) {
                        continue; // Redlock: too few nodes answered in time on this busy machine; nothing held
                    }
                    if (acquired.isEmpty()) {
                        continue;
                    }
                    try (Lease lease = acquired.get()) {
                        fenced.enter(lease.fencingToken());
                        fenced.write(lease.fencingToken());
                        Thread.sleep(ThreadLocalRandom.current().nextInt(1, 4));
                        fenced.exit(lease.fencingToken());
                    }
                    held++;
                    Thread.sleep(ThreadLocalRandom.current().nextInt(0, maxPauseMillis + 1));
                }
            }
            return held;
        };
    }

    /**
     * {@code coordis lock} runs one after another, each running a shell command that enters the resource with
     * {@code $COORDIS_LOCK_TOKEN}, writes and leaves; answers how many ran.
     */
    private static int cliRuns(FencedResource resource, String name, int chain) {
        String script = "exec 3<>/dev/tcp/127.0.0.1/" + resource.port() + " && for verb in ENTER WRITE EXIT; do "
                + "echo \"$verb cli-" + chain + " $COORDIS_LOCK_TOKEN\" >&3; read -r answer <&3; done";
        int runs = 0;
        for (int i = 0; i < CLI_RUNS_PER_CHAIN; i++) {
            try (CliProcess cli = CliProcess.start("lock", "-q", "-u", redis.uri(), "-w", "30s", name, "--",
                    "bash", "-c", script)) {
                assertThat(cli.exitCode(Duration.ofSeconds(45))).as(cli.stderr()).isZero();
                runs++;
            }
        }
        return runs;
    }

    /** The fencing numbers of the Coordis holders (library and CLI) rise in the order they entered. */
    static void assertCoordisTokensRise(FencedResource resource) {
        long last = Long.MIN_VALUE;
        int coordisEnters = 0;
        for (FencedResource.Event e : resource.events("ENTER")) {
            if (e.client().startsWith("lib-") || e.client().startsWith("cli-")) {
                assertThat(e.token()).as("%s entered after token %d", e.client(), last).isGreaterThan(last);
                last = e.token();
                coordisEnters++;
            }
        }
        assertThat(coordisEnters).isPositive();
    }
}
