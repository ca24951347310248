package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.coordis.redis.runner.ProcessSupport;
import io.coordis.testkit.FaultProxy.Fault;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class FaultProxyIT {

    private static RedisServer server;
    private FaultProxy proxy;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @BeforeEach
    void startProxy() {
        server.flushAll();
        proxy = FaultProxy.to(server);
    }

    @AfterEach
    void closeProxy() {
        proxy.close();
    }

    private RespClient client(Duration timeout) {
        return RespClient.connect(proxy.host(), proxy.port(), timeout);
    }

    @Test
    void passForwardsCommandsAndPipelines() {
        assertThat(proxy.uri()).isEqualTo("redis://127.0.0.1:" + proxy.port());
        assertThat(proxy.address()).isEqualTo("127.0.0.1:" + proxy.port());
        assertThat(proxy.fault()).isEqualTo(Fault.PASS);
        try (RespClient c = client(Duration.ofSeconds(5))) {
            assertThat(c.command("PING")).isEqualTo("PONG");
            for (int i = 0; i < 500; i++) {
                c.send("INCR", "n");
            }
            for (long i = 1; i <= 500; i++) {
                assertThat(c.read()).isEqualTo(i);
            }
            String big = "x".repeat(200_000);
            c.command("SET", "big", big);
            assertThat(c.command("GET", "big")).isEqualTo(big);
        }
        assertThat(server.command("GET", "n")).isEqualTo("500");
    }

    @Test
    void latencyDelaysEachDirection() {
        try (RespClient c = client(Duration.ofSeconds(5))) {
            c.command("PING");
            proxy.latency(Duration.ofMillis(150));
            assertThat(proxy.fault()).isEqualTo(Fault.LATENCY);
            long start = System.nanoTime();
            assertThat(c.command("PING")).isEqualTo("PONG");
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;
            assertThat(elapsedMs).isGreaterThanOrEqualTo(300);

            proxy.pass();
            start = System.nanoTime();
            assertThat(c.command("PING")).isEqualTo("PONG");
            assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(150);
        }
    }

    @Test
    void blackholeSwallowsTrafficAndHealingDeliversIt() {
        try (RespClient before = client(Duration.ofMillis(300))) {
            assertThat(before.command("PING")).isEqualTo("PONG");
            proxy.blackhole();
            assertThatThrownBy(() -> before.command("SET", "k", "during-partition"))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(SocketTimeoutException.class);

            try (RespClient fresh = client(Duration.ofMillis(300))) {
                assertThatThrownBy(() -> fresh.command("PING"))
                        .isInstanceOf(UncheckedIOException.class)
                        .hasCauseInstanceOf(SocketTimeoutException.class);
                assertThat(server.command("GET", "k")).isNull();
                assertThat(proxy.connectionCount()).isEqualTo(2);

                proxy.pass();
                // held bytes are delivered in order after the partition heals
                assertThat(fresh.timeout(Duration.ofSeconds(5)).read()).isEqualTo("PONG");
                assertThat(before.timeout(Duration.ofSeconds(5)).read()).isEqualTo("OK");
                assertThat(server.command("GET", "k")).isEqualTo("during-partition");
            }
        }
    }

    @Test
    void resetAllBreaksCurrentConnectionsOnly() {
        try (RespClient c = client(Duration.ofSeconds(2))) {
            assertThat(c.command("PING")).isEqualTo("PONG");
            await().atMost(Duration.ofSeconds(5)).until(() -> proxy.connectionCount() == 1);
            proxy.resetAll();
            assertThat(proxy.connectionCount()).isZero();
            assertThatThrownBy(() -> c.command("PING")).isInstanceOf(UncheckedIOException.class)
                    .satisfies(e -> assertThat(e.getCause()).isNotInstanceOf(SocketTimeoutException.class));
        }
        assertThat(proxy.fault()).isEqualTo(Fault.PASS);
        try (RespClient fresh = client(Duration.ofSeconds(2))) {
            assertThat(fresh.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void resetModeRefusesNewConnectionsUntilLifted() {
        proxy.set(Fault.RESET);
        // the reset may already hit the connect, or the first command
        assertThatThrownBy(() -> {
            try (RespClient c = client(Duration.ofSeconds(2))) {
                c.command("PING");
            }
        }).isInstanceOf(UncheckedIOException.class);
        proxy.pass();
        try (RespClient c = client(Duration.ofSeconds(2))) {
            assertThat(c.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void dropNextReplySwallowsExactlyOneReply() {
        try (RespClient c = client(Duration.ofMillis(500))) {
            assertThat(c.command("PING")).isEqualTo("PONG");
            proxy.dropNextReply();
            assertThat(proxy.fault()).isEqualTo(Fault.DROP_NEXT_REPLY);
            assertThatThrownBy(() -> c.command("INCR", "counter"))
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(SocketTimeoutException.class);
            // the request was executed, only its reply was lost
            assertThat(server.command("GET", "counter")).isEqualTo("1");
            assertThat(proxy.droppedReplies()).isEqualTo(1);
            assertThat(proxy.fault()).isEqualTo(Fault.PASS);
            assertThat(c.command("INCR", "counter")).isEqualTo(2L);
            assertThat(c.command("INCR", "counter")).isEqualTo(3L);
        }
        assertThat(proxy.droppedReplies()).isEqualTo(1);
    }

    @Test
    void unreachableTargetClosesTheClientConnection() {
        int deadPort = ProcessSupport.freePort();
        try (FaultProxy dead = FaultProxy.to("127.0.0.1", deadPort)) {
            // the proxy resets the client as soon as it fails to reach the target: the reset may
            // already hit the client's connect, or only its first command
            assertThatThrownBy(() -> {
                try (RespClient c = RespClient.connect(dead.host(), dead.port(), Duration.ofSeconds(2))) {
                    c.command("PING");
                }
            }).isInstanceOf(UncheckedIOException.class)
                    .satisfies(e -> assertThat(e.getCause()).isNotInstanceOf(SocketTimeoutException.class));
        }
    }

    @Test
    void proxyFollowsServerRestartOnSamePort() {
        try (RespClient c = client(Duration.ofSeconds(2))) {
            assertThat(c.command("PING")).isEqualTo("PONG");
        }
        server.restart(Duration.ZERO);
        try (RespClient c = client(Duration.ofSeconds(2))) {
            assertThat(c.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void closeEndsAllProxyThreads() {
        String prefix = "faultproxy-" + proxy.port() + "-";
        List<RespClient> clients = List.of(client(Duration.ofSeconds(2)), client(Duration.ofSeconds(2)));
        try {
            for (RespClient c : clients) {
                assertThat(c.command("PING")).isEqualTo("PONG");
            }
            proxy.blackhole();
            clients.get(0).send("PING");
            await().atMost(Duration.ofSeconds(5)).until(() -> proxyThreads(prefix) == 5);
            proxy.close();
            assertThat(proxyThreads(prefix)).isZero();
            assertThatThrownBy(() -> RespClient.connect(proxy.host(), proxy.port(), Duration.ofMillis(500)))
                    .isInstanceOf(UncheckedIOException.class);
        } finally {
            clients.forEach(RespClient::close);
        }
    }

    private static long proxyThreads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix) && t.isAlive())
                .count();
    }
}
