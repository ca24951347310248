package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.coordis.redis.runner.ProcessSupport;
import io.coordis.redis.runner.RedisBinary;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS servers: rediss:// URI, PING over TLS, plain text refused, replication over TLS, clear failure without TLS. */
class TlsIT {

    /** A binary without TLS fails here with a message naming it: TLS servers are a promised feature of the kit. */
    private static RedisServer startTls(RedisServerBuilder builder) {
        return builder.start();
    }

    @Test
    void tlsServerAnswersPingOverTlsAndRefusesPlainText() {
        try (RedisServer server = startTls(RedisServer.builder().tls())) {
            assertThat(server.isTls()).isTrue();
            assertThat(server.uri()).isEqualTo("rediss://127.0.0.1:" + server.port());
            Path ca = server.tlsCaFile().orElseThrow();
            assertThat(ca).isRegularFile().isEqualTo(TestCertificates.get().caFile());
            assertThat(server.command("PING")).isEqualTo("PONG");
            try (RespClient c = RespClient.connect(server)) {
                assertThat(c.command("SET", "k", "v")).isEqualTo("OK");
                assertThat(c.command("GET", "k")).isEqualTo("v");
            }
            try (RespClient c = RespClient.connect(server.host(), server.port(), Duration.ofSeconds(5),
                    TestCertificates.trusting(ca))) {
                assertThat(c.command("PING")).isEqualTo("PONG");
            }
            assertThat(server.command("CONFIG", "GET", "port")).isEqualTo(java.util.List.of("port", "0"));
            assertThat(server.command("CONFIG", "GET", "tls-port"))
                    .isEqualTo(java.util.List.of("tls-port", Integer.toString(server.port())));
            try (RespClient plain = RespClient.connect(server.host(), server.port(), Duration.ofSeconds(2))) {
                assertThatThrownBy(() -> plain.command("PING")).isInstanceOf(UncheckedIOException.class);
            }
        }
    }

    @Test
    void uriKeepsThePasswordAndReplicasReplicateOverTls() {
        try (RedisGroup group = RedisGroup.masterWithReplicas(1, RedisServer.builder().tls().requirePass("tls-Secret-1"))) {
            assertThat(group.master().uri()).isEqualTo("rediss://:tls-Secret-1@" + group.master().address());
            group.master().command("SET", "replicated", "yes");
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (!"yes".equals(group.replicas().get(0).command("GET", "replicated")) && System.nanoTime() < deadline) {
                ProcessSupport.sleep(Duration.ofMillis(20));
            }
            assertThat(group.replicas().get(0).command("GET", "replicated")).isEqualTo("yes");
        }
    }

    @Test
    void embeddedBinaryServesTls() {
        try (RedisServer server = startTls(RedisServer.builder().binary(RedisBinary.embedded()).tls())) {
            assertThat(server.version()).startsWith("6.2.");
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void certificatesMadeWithKeytoolWork(@TempDir Path dir) {
        TestCertificates certs = TestCertificates.generate(dir, TestCertificates.Generator.KEYTOOL);
        assertThat(certs.keyFile()).content().startsWith("-----BEGIN PRIVATE KEY-----");
        try (RedisServer server = startTls(RedisServer.builder().tls(certs))) {
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @Test
    void binaryWithoutTlsFailsWithAClearMessage(@TempDir Path dir) throws Exception {
        // imitates a redis-server built without BUILD_TLS: it rejects the tls-port directive
        Path fake = dir.resolve("redis-server");
        Files.writeString(fake, "#!/bin/sh\n"
                + "if [ \"$1\" = \"--version\" ]; then echo 'Redis server v=6.2.6 sha=00000000:0'; exit 0; fi\n"
                + "echo '*** FATAL CONFIG FILE ERROR (Redis 6.2.6) ***' >&2\n"
                + "echo 'Reading the configuration file, at line 7' >&2\n"
                + "echo \">>> 'tls-port \\\"1234\\\"'\" >&2\n"
                + "echo 'Bad directive or wrong number of arguments' >&2\n"
                + "exit 1\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        RedisBinary binary = RedisBinary.of(fake);
        assertThatThrownBy(() -> RedisServer.builder().binary(binary).tls().start())
                .isInstanceOfSatisfying(TlsUnsupportedException.class, e -> assertThat(e.binary()).isSameAs(binary))
                .hasMessageContaining(fake.toString()).hasMessageContaining("does not support TLS");
        assertThatThrownBy(() -> RedisServer.builder().binary(binary).start())
                .isInstanceOf(IllegalStateException.class).isNotInstanceOf(TlsUnsupportedException.class);
    }
}
