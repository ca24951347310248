package io.coordis;

import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Redis down, wrong credentials, missing permissions, out of memory, read-only: typed errors, clear messages. */
class ConnectionErrorsIT {
    private static final String PASSWORD = "pa55-Top-Secret";
    private static final Duration TIMEOUT = Duration.ofMillis(500);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.of(RedisServer.builder()
            .requirePass(PASSWORD)
            .aclUser("reader", "reader-Secret-1", "~*", "&*", "+@read", "+ping", "+hello", "+auth", "+client"));

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String everything(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w + " " + t;
    }

    /**
     * Connects with {@link #TIMEOUT} to {@code port} where nothing answers, asserts the error and returns how
     * long it took.
     */
    private static Duration failingConnect(int port) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> TestClients.builder().url("redis://127.0.0.1:" + port).commandTimeout(TIMEOUT)
                .connect())
                .isInstanceOfSatisfying(NodeUnavailableException.class,
                        e -> assertThat(e.node()).contains("127.0.0.1:" + port))
                .hasMessageContaining("127.0.0.1:" + port).hasMessageContaining("unavailable");
        return Duration.ofNanos(System.nanoTime() - start);
    }

    /**
     * The first connection a JVM makes loads some 3,000 classes of Lettuce, Netty and Reactor: 0.5-1.9 s on a
     * busy 2-core machine whether Redis is there or not, against 5-25 ms for the same failing connect once
     * they are loaded. The bound is on what the client waits for, so the measured connect is the second.
     */
    private static void loadClientClasses() throws Exception {
        failingConnect(closedPort());
    }

    @Test
    void redisDownAtStartIsNodeUnavailableWithinTheTimeout() throws Exception {
        loadClientClasses();
        Duration took = failingConnect(closedPort());
        System.out.println("Redis down at start: NodeUnavailableException after " + took.toMillis() + " ms");
        assertThat(took).as("connection refused: NodeUnavailable within the command timeout + 1 s")
                .isLessThan(TIMEOUT.plusSeconds(1));
    }

    @Test
    void redisSilentAtStartIsNodeUnavailableWithinTheTimeout() throws Exception {
        loadClientClasses();
        // accepts connections (the kernel completes the handshake from the backlog) but never answers
        try (ServerSocket silent = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Duration took = failingConnect(silent.getLocalPort());
            System.out.println("Redis silent at start: NodeUnavailableException after " + took.toMillis() + " ms");
            assertThat(took).as("no answer: NodeUnavailable within the command timeout + 1 s")
                    .isLessThan(TIMEOUT.plusSeconds(1));
        }
    }

    @Test
    void wrongPasswordIsAccessDeniedAndNeverShowsThePassword() {
        String url = "redis://:Wrong-Guess-99@" + redis.server().address();
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> TestClients.connect(url));
        assertThat(t).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining(redis.server().address())
                .hasMessageContaining("check the user and password");
        assertThat(everything(t)).doesNotContain("Wrong-Guess-99").doesNotContain(PASSWORD);
    }

    /**
     * Lettuce closes the channel when Redis refuses the credentials, and on a loaded machine that close can
     * overtake the refusal and be all it reports (see {@code HandshakeRefusalIT}). A connection closed during its
     * handshake is tried again, so the refusal is named; a server that closes every new connection is still
     * unavailable, after the same number of attempts.
     */
    @Test
    void aConnectionClosedDuringTheHandshakeIsTriedAgain() throws Exception {
        loadClientClasses();
        java.util.concurrent.atomic.AtomicInteger accepted = new java.util.concurrent.atomic.AtomicInteger();
        try (ServerSocket closing = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Thread server = new Thread(() -> {
                while (!closing.isClosed()) {
                    try (java.net.Socket s = closing.accept()) {
                        accepted.incrementAndGet();
                        s.getInputStream().read(new byte[256]); // the handshake's first command, then close
                    } catch (java.io.IOException e) {
                        return;
                    }
                }
            }, "closing-server");
            server.setDaemon(true);
            server.start();
            assertThatThrownBy(() -> TestClients.builder().url("redis://127.0.0.1:" + closing.getLocalPort())
                    .commandTimeout(TIMEOUT).connect())
                    .isInstanceOf(NodeUnavailableException.class).hasMessageContaining("closed prematurely");
            assertThat(accepted.get()).as("connections the client opened").isEqualTo(3);
        }
    }

    @Test
    void missingPasswordIsAccessDenied() {
        Throwable t = org.assertj.core.api.Assertions.catchThrowable(
                () -> TestClients.connect("redis://" + redis.server().address()));
        assertThat(t).isInstanceOf(AccessDeniedException.class);
    }

    @Test
    void rightPasswordWorks() {
        try (Coordis c = TestClients.connect(redis.uri())) {
            c.lock("ok").tryAcquire().orElseThrow().close();
        }
    }

    @Test
    void aclUserWithoutScriptPermissionGetsAccessDeniedNamingNoperm() {
        try (Coordis c = Coordis.connect("redis://reader:reader-Secret-1@" + redis.server().address())) {
            Throwable t = org.assertj.core.api.Assertions.catchThrowable(() -> c.lock("acl").tryAcquire());
            assertThat(t).isInstanceOf(AccessDeniedException.class).hasMessageContaining("NOPERM");
            assertThat(everything(t)).doesNotContain("reader-Secret-1");
        }
    }

    @Test
    void outOfMemoryIsCommandRejectedAndLeavesNothingLocked() {
        try (Coordis c = TestClients.connect(redis.uri())) {
            redis.server().command("AUTH", PASSWORD);
            setMaxmemory("1");
            try {
                assertThatThrownBy(() -> c.lock("oom").tryAcquire())
                        .isInstanceOf(CommandRejectedException.class).hasMessageContaining("out of memory");
            } finally {
                setMaxmemory("0");
            }
            assertThat(c.lock("oom").holder()).isEmpty();
            try (Lease lease = c.lock("oom", LockOptions.defaults()).tryAcquire().orElseThrow()) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }

    private static void setMaxmemory(String value) {
        try (var client = io.coordis.testkit.RespClient.connect(redis.server())) {
            client.command("AUTH", PASSWORD);
            client.command("CONFIG", "SET", "maxmemory", value);
        }
    }
}
