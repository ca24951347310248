package io.coordis.testkit.fault;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.fault.Nemesis.Kind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built-in faults on real servers, proxies and namespaces: each is applied, held far longer than the test
 * waits, and closing the nemesis lifts it at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NemesisIT {
    private static final Duration LONG = Duration.ofSeconds(30);

    private static Nemesis holding(Nemesis.Builder b, Kind kind) {
        return b.kinds(EnumSet.of(kind)).gap(Duration.ZERO, Duration.ZERO).hold(LONG, LONG).restartDelay(LONG).build();
    }

    /** True when the server answers PING within {@code timeout} on a new connection. */
    private static boolean answers(RedisServer server, Duration timeout) {
        try (RespClient c = RespClient.connect(server.host(), server.port(), timeout)) {
            return "PONG".equals(c.command("PING"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what + " within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static void closeHeals(Nemesis nemesis, RedisServer server, Kind kind) throws Exception {
        try {
            nemesis.start(LONG.multipliedBy(2));
            awaitTrue(kind + " bit", () -> !answers(server, Duration.ofMillis(200)));
        } finally {
            nemesis.close();
        }
        assertThat(answers(server, Duration.ofSeconds(2))).as(kind + " lifted by close").isTrue();
        assertThat(nemesis.events()).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(kind);
            assertThat(e.target()).isEqualTo(server.address());
            assertThat(e.held()).isLessThan(LONG);
        });
    }

    @Test
    void closingLiftsAPausedServer() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            Nemesis nemesis = holding(Nemesis.builder(1).servers(List.of(server)), Kind.PAUSE);
            closeHeals(nemesis, server, Kind.PAUSE);
            assertThat(server.isPaused()).isFalse();
        }
    }

    @Test
    void closingWaitsOutAClientPauseAsRedisLetsNoClientLiftIt() throws Exception {
        Duration hold = Duration.ofSeconds(3);
        try (RedisServer server = RedisServer.start()) {
            Nemesis nemesis = Nemesis.builder(2).servers(List.of(server)).kinds(EnumSet.of(Kind.CLIENT_PAUSE))
                    .gap(Duration.ZERO, Duration.ZERO).hold(hold, hold).build();
            long start;
            try {
                nemesis.start(LONG);
                awaitTrue("CLIENT PAUSE bit", () -> !answers(server, Duration.ofMillis(200)));
                start = System.nanoTime();
            } finally {
                nemesis.close();
            }
            assertThat(answers(server, Duration.ofMillis(200))).as("lifted when close returns").isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close waited at most the rest of the hold")
                    .isLessThan(hold.plusSeconds(1));
            assertThat(nemesis.events()).singleElement().satisfies(e -> {
                assertThat(e.kind()).isEqualTo(Kind.CLIENT_PAUSE);
                assertThat(e.held()).isGreaterThanOrEqualTo(hold);
            });
        }
    }

    @Test
    void closingRestartsAKilledServerBeforeItsRestartDelay() throws Exception {
        try (RedisServer server = RedisServer.start()) {
            long pid = server.pid();
            closeHeals(holding(Nemesis.builder(3).servers(List.of(server)), Kind.KILL_RESTART), server, Kind.KILL_RESTART);
            assertThat(server.pid()).as("a new process").isNotEqualTo(pid);
        }
    }

    @Test
    void closingLiftsLatencyAndBlackholesOnAProxy() throws Exception {
        try (RedisServer server = RedisServer.start(); FaultProxy proxy = FaultProxy.to(server)) {
            for (Kind kind : List.of(Kind.LATENCY, Kind.BLACKHOLE)) {
                Nemesis nemesis = holding(Nemesis.builder(4).proxies(List.of(proxy)), kind);
                try {
                    nemesis.start(LONG.multipliedBy(2));
                    awaitTrue(kind + " applied", () -> proxy.fault() != FaultProxy.Fault.PASS);
                } finally {
                    nemesis.close();
                }
                assertThat(proxy.fault()).as(kind + " lifted by close").isEqualTo(FaultProxy.Fault.PASS);
                assertThat(nemesis.events()).singleElement().satisfies(e -> assertThat(e.kind()).isEqualTo(kind));
            }
        }
    }

    @Test
    void closingHealsAPartition() throws Exception {
        NetworkNamespace.requiredInCi("network namespaces");
        try (NetworkNamespace ns = NetworkNamespace.create();
             RedisServer server = RedisServer.builder().namespace(ns).start()) {
            Nemesis nemesis = holding(Nemesis.builder(5).namespaces(List.of(ns)), Kind.PARTITION);
            try {
                nemesis.start(LONG.multipliedBy(2));
                awaitTrue("partitioned", ns::isPartitioned);
                assertThat(answers(server, Duration.ofMillis(300))).as("cut off").isFalse();
            } finally {
                nemesis.close();
            }
            assertThat(ns.isPartitioned()).isFalse();
            assertThat(answers(server, Duration.ofSeconds(2))).as("reachable again").isTrue();
            assertThat(nemesis.events()).singleElement().satisfies(e -> assertThat(e.target()).isEqualTo(ns.toString()));
        }
    }
}
