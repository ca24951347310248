package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.coordis.redis.runner.ProcessSupport;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

@SuppressWarnings("unchecked")
class RedisServerIT {

    @Test
    void startsAnswersPingAndStops() {
        Path dir;
        long pid;
        try (RedisServer server = RedisServer.start()) {
            dir = server.dir();
            pid = server.pid();
            assertThat(server.isRunning()).isTrue();
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.address()).isEqualTo("127.0.0.1:" + server.port());
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(server.command("PING")).isEqualTo("PONG");
            Map<String, String> info = server.info("server");
            assertThat(info).containsEntry("process_id", Long.toString(pid))
                    .containsEntry("tcp_port", Integer.toString(server.port()))
                    .containsEntry("redis_version", server.version());
            assertThat((List<Object>) server.command("CONFIG", "GET", "save")).containsExactly("save", "");
            assertThat(Files.exists(server.logFile())).isTrue();

            server.stop();
            assertThat(server.isRunning()).isFalse();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
            server.stop(); // idempotent
            assertThatThrownBy(() -> server.command("PING"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("not running");
        }
        assertThat(Files.exists(dir)).isFalse();
    }

    @Test
    void flushAllEmptiesTheServer() {
        try (RedisServer server = RedisServer.start()) {
            server.command("SET", "k", "v");
            assertThat(server.command("DBSIZE")).isEqualTo(1L);
            server.flushAll();
            assertThat(server.command("DBSIZE")).isEqualTo(0L);
        }
    }

    @Test
    void killAndRestartKeepThePort() {
        try (RedisServer server = RedisServer.start()) {
            int port = server.port();
            long firstPid = server.pid();
            server.kill();
            assertThat(server.isRunning()).isFalse();
            assertThatThrownBy(() -> RespClient.connect("127.0.0.1", port, Duration.ofMillis(500)))
                    .isInstanceOf(UncheckedIOException.class);

            server.restart(Duration.ofMillis(50));
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.pid()).isNotEqualTo(firstPid);
            try (RespClient c = RespClient.connect("127.0.0.1", port)) {
                assertThat(c.command("PING")).isEqualTo("PONG");
            }
            // restart of a running server kills it first
            long secondPid = server.pid();
            server.restart(Duration.ZERO);
            assertThat(server.pid()).isNotEqualTo(secondPid);
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void appendOnlyDataSurvivesKillAndRestart() {
        try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always").start()) {
            server.command("SET", "durable", "yes");
            server.restart(Duration.ZERO);
            assertThat(server.command("GET", "durable")).isEqualTo("yes");
        }
    }

    @Test
    void withoutPersistenceRestartStartsEmpty() {
        try (RedisServer server = RedisServer.start()) {
            server.command("SET", "volatile", "1");
            server.restart(Duration.ZERO);
            assertThat(server.command("GET", "volatile")).isNull();
        }
    }

    @Test
    void pausedServerDoesNotAnswerUntilResumed() {
        try (RedisServer server = RedisServer.start()) {
            server.pause();
            assertThat(server.isPaused()).isTrue();
            assertThat(server.isRunning()).isTrue();
            RespClient waiting = RespClient.connect("127.0.0.1", server.port(), Duration.ofMillis(300));
            try {
                assertThatThrownBy(() -> waiting.command("PING"))
                        .isInstanceOf(UncheckedIOException.class)
                        .hasCauseInstanceOf(SocketTimeoutException.class);

                server.resume();
                assertThat(server.isPaused()).isFalse();
                // the PING sent while paused is answered once the process continues
                assertThat(waiting.timeout(Duration.ofSeconds(5)).read()).isEqualTo("PONG");
                assertThat(server.command("PING")).isEqualTo("PONG");
            } finally {
                waiting.close();
            }
        }
    }

    @Test
    void pausedServerCanBeStopped() {
        RedisServer server = RedisServer.start();
        long pid = server.pid();
        server.pause();
        server.close();
        assertThat(server.isRunning()).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void requirePassRejectsUnauthenticatedClients() {
        try (RedisServer server = RedisServer.builder().requirePass("s3cret").start()) {
            assertThat(server.uri()).isEqualTo("redis://:s3cret@127.0.0.1:" + server.port());
            assertThat(server.password()).contains("s3cret");
            try (RespClient c = RespClient.connect("127.0.0.1", server.port())) {
                assertThatThrownBy(() -> c.command("PING"))
                        .isInstanceOfSatisfying(RespException.class, e -> assertThat(e.code()).isEqualTo("NOAUTH"));
                assertThatThrownBy(() -> c.auth("wrong")).isInstanceOf(RespException.class);
                assertThat(c.auth("s3cret")).isEqualTo("OK");
                assertThat(c.command("PING")).isEqualTo("PONG");
            }
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void aclUserCanAuthenticate() {
        try (RedisServer server = RedisServer.builder()
                .aclUser("alice", "pw", "~*", "&*", "+@all")
                .aclUser("reader", "rpw", "~*", "+get")
                .start()) {
            try (RespClient c = RespClient.connect("127.0.0.1", server.port())) {
                assertThat(c.auth("alice", "pw")).isEqualTo("OK");
                assertThat(c.command("SET", "k", "v")).isEqualTo("OK");
                assertThat(c.auth("reader", "rpw")).isEqualTo("OK");
                assertThat(c.command("GET", "k")).isEqualTo("v");
                assertThatThrownBy(() -> c.command("SET", "k", "w"))
                        .isInstanceOfSatisfying(RespException.class, e -> assertThat(e.code()).isEqualTo("NOPERM"));
            }
        }
    }

    @Test
    void debugCommandCanBeEnabled() {
        try (RedisServer server = RedisServer.builder().enableDebugCommand().start()) {
            assertThat(server.command("DEBUG", "SLEEP", "0")).isEqualTo("OK");
        }
    }

    @Test
    void extraArgumentsReachTheServer() {
        try (RedisServer server = RedisServer.builder().arg("--maxmemory", "12mb").start()) {
            assertThat((List<Object>) server.command("CONFIG", "GET", "maxmemory"))
                    .containsExactly("maxmemory", Long.toString(12L * 1024 * 1024));
        }
    }

    @Test
    void failedStartExplainsWhyWithoutLeakingThePassword() {
        assertThatThrownBy(() -> RedisServer.builder()
                .requirePass("topsecret")
                .arg("--no-such-option", "1")
                .startTimeout(Duration.ofSeconds(5))
                .start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("exited")
                .hasMessageContaining("--no-such-option")
                .hasMessageContaining("requirepass")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("topsecret"));
    }

    @Test
    void fixedPortIsUsed() {
        int port = ProcessSupport.freePort();
        try (RedisServer server = RedisServer.builder().port(port).start()) {
            assertThat(server.port()).isEqualTo(port);
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void secondServerOnATakenFixedPortFailsClearly() {
        try (RedisServer first = RedisServer.start()) {
            assertThatThrownBy(() -> RedisServer.builder().port(first.port()).start())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining(first.address());
            assertThat(first.command("PING")).isEqualTo("PONG");
        }
    }
}
