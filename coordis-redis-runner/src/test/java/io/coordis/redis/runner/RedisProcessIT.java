package io.coordis.redis.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A real redis-server started, asked and stopped by the runner; each test takes a second or less. */
class RedisProcessIT {

    @AfterEach
    void clearProperty() {
        System.clearProperty(RedisBinary.SERVER_PROPERTY);
    }

    @Test
    void startsAnswersPingAndStops() throws IOException {
        Path dir;
        long pid;
        try (RedisProcess server = RedisProcess.start()) {
            assertThat(server.host()).isEqualTo("127.0.0.1");
            assertThat(server.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
            assertThat(server.isRunning()).isTrue();
            assertThat(ping(server)).isEqualTo("+PONG");
            assertThat(Files.readString(server.dir().resolve("redis.conf"))).contains("save \"\"", "\"appendonly\" \"no\"");
            dir = server.dir();
            pid = server.pid();

            server.stop();
            assertThat(server.isRunning()).isFalse();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
            assertThat(dir).exists();

            server.restart(Duration.ZERO);
            assertThat(ping(server)).isEqualTo("+PONG");
            assertThat(server.pid()).isNotEqualTo(pid);
        }
        assertThat(dir).doesNotExist();
    }

    @Test
    void aFixedPortInUseIsAClearError() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName(RedisProcess.HOST))) {
            assertThatThrownBy(() -> RedisProcess.builder().port(taken.getLocalPort()).start())
                    .isInstanceOf(RedisStartException.class)
                    .hasMessageContaining("exited")
                    .hasMessageContaining("127.0.0.1:" + taken.getLocalPort())
                    .hasMessageContaining("Address already in use");
        }
    }

    @Test
    void aMissingBinaryIsAClearError() {
        System.setProperty(RedisBinary.SERVER_PROPERTY, "/no/such/redis-server");
        if (RedisBinary.embeddedForced()) {
            // COORDIS_REDIS_EMBEDDED=1 comes first in the lookup: the named binary is not even looked at
            assertThat(RedisBinary.resolve().source()).isEqualTo(RedisBinary.Source.EMBEDDED);
            return;
        }
        assertThatThrownBy(RedisProcess::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("coordis.redis.server names /no/such/redis-server, which is not an executable");
    }

    @Test
    void aServerThatCannotStartSaysWhyWithoutItsPassword() {
        assertThatThrownBy(() -> RedisProcess.builder()
                .arg("--requirepass", "topsecret", "--no-such-option", "1")
                .startTimeout(Duration.ofSeconds(5))
                .start())
                .isInstanceOf(RedisStartException.class)
                .hasMessageContaining("exited")
                .hasMessageContaining("--no-such-option")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("topsecret"))
                .satisfies(e -> assertThat(((RedisStartException) e).logs()).contains("no-such-option"));
    }

    private static String ping(RedisProcess server) throws IOException {
        try (Socket socket = new Socket(server.host(), server.port())) {
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            byte[] reply = new byte[7];
            assertThat(in.readNBytes(reply, 0, 7)).isEqualTo(7);
            return new String(reply, StandardCharsets.US_ASCII).strip();
        }
    }
}
