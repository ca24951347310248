package io.coordis;

import io.coordis.lock.Lease;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** {@code rediss://} URLs against a redis-server that serves TLS only. */
class TlsIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static RedisServer server;

    @BeforeAll
    static void startTlsServer() {
        // A binary without TLS support fails here with a message naming it: rediss:// is a promised feature.
        server = RedisServer.builder().tls().start();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static String valueOf(String key) {
        try (RespClient client = RespClient.connect(server)) {
            return (String) client.command("GET", key);
        }
    }

    @Test
    void redissUrlAcquiresAndReleasesALock() {
        assertThat(server.uri()).startsWith("rediss://127.0.0.1:");
        try (Coordis coordis = Coordis.connect(server.uri() + "?verifyPeer=NONE")) {
            assertThat(coordis.address()).isEqualTo(server.address());
            Lease lease = coordis.lock("tls:lock").tryAcquire().orElseThrow();
            assertThat(valueOf(lease.key())).isEqualTo(lease.token());
            assertThat(lease.release()).isTrue();
            assertThat(valueOf(lease.key())).isNull();
        }
    }

    @Test
    void plainUrlToTheTlsPortFailsAsNodeUnavailableWithinTheTimeout() {
        String url = "redis://" + server.address();
        long start = System.nanoTime();
        Throwable t = catchThrowable(() -> {
            try (Coordis coordis = Coordis.builder().url(url).commandTimeout(TIMEOUT).connect()) {
                coordis.lock("tls:plain").tryAcquire();
            }
        });
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.printf("TlsIT: plain redis:// to the TLS port failed after %d ms with %s%n", took.toMillis(), t);
        assertThat(t).isInstanceOf(NodeUnavailableException.class).hasMessageContaining(server.address());
        assertThat(took).isLessThan(TIMEOUT.plusMillis(500));
    }

    @Test
    void certificateOfAnUnknownCaIsRejectedByDefault() {
        long start = System.nanoTime();
        Throwable t = catchThrowable(() -> Coordis.builder().url(server.uri()).commandTimeout(TIMEOUT).connect().close());
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.printf("TlsIT: rediss:// with peer verification failed after %d ms with %s%n", took.toMillis(), t);
        assertThat(t).isInstanceOf(NodeUnavailableException.class).hasMessageContaining(server.address())
                .hasMessageContaining("TLS handshake").hasMessageContaining("CA certificate");
        assertThat(took).isLessThan(TIMEOUT.plusMillis(500));
    }

    @Test
    void trustingTheServersCaVerifiesThePeer() {
        try (Coordis coordis = Coordis.builder().url(server.uri())
                .trustedCertificates(server.tlsCaFile().orElseThrow()).connect()) {
            Lease lease = coordis.lock("tls:verified").tryAcquire().orElseThrow();
            assertThat(valueOf(lease.key())).isEqualTo(lease.token());
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void missingCertificateFileIsABadArgument() {
        Throwable t = catchThrowable(() -> Coordis.builder().trustedCertificates(java.nio.file.Path.of("/no/such/ca.pem")));
        assertThat(t).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/no/such/ca.pem");
    }
}
