package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Decoding and encoding against a scripted socket peer, no server involved. */
class RespClientTest {

    private ServerSocket peer;

    @BeforeEach
    void listen() throws Exception {
        peer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    }

    @AfterEach
    void closePeer() throws Exception {
        peer.close();
    }

    /** Accepts one connection, reads {@code requestBytes} bytes, answers with {@code reply}, keeps the socket open. */
    private CompletableFuture<byte[]> serveOnce(int requestBytes, String reply) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                Socket s = peer.accept();
                InputStream in = s.getInputStream();
                byte[] request = in.readNBytes(requestBytes);
                s.getOutputStream().write(reply.getBytes(StandardCharsets.UTF_8));
                s.getOutputStream().flush();
                return request;
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void encodesCommandAsArrayOfBulkStrings() {
        String expected = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nvé\r\n";
        CompletableFuture<byte[]> request = serveOnce(expected.getBytes(StandardCharsets.UTF_8).length, "+OK\r\n");
        try (RespClient c = RespClient.connect("127.0.0.1", peer.getLocalPort())) {
            assertThat(c.command("SET", "k", "vé")).isEqualTo("OK");
        }
        assertThat(new String(request.join(), StandardCharsets.UTF_8)).isEqualTo(expected);
    }

    @Test
    void decodesAllResp2Types() {
        String reply = ":42\r\n$5\r\nhello\r\n$-1\r\n*3\r\n:1\r\n$0\r\n\r\n-ERR nested\r\n*-1\r\n";
        serveOnce(0, reply);
        try (RespClient c = RespClient.connect("127.0.0.1", peer.getLocalPort())) {
            assertThat(c.read()).isEqualTo(42L);
            assertThat(c.read()).isEqualTo("hello");
            assertThat(c.read()).isNull();
            List<?> array = (List<?>) c.read();
            assertThat(array).hasSize(3);
            assertThat(array.get(0)).isEqualTo(1L);
            assertThat(array.get(1)).isEqualTo("");
            assertThat(array.get(2)).isInstanceOf(RespException.class);
            assertThat(c.read()).isNull();
        }
    }

    @Test
    void topLevelErrorIsThrownWithItsCode() {
        serveOnce(0, "-NOAUTH Authentication required.\r\n");
        try (RespClient c = RespClient.connect("127.0.0.1", peer.getLocalPort())) {
            assertThatThrownBy(c::read)
                    .isInstanceOfSatisfying(RespException.class, e -> assertThat(e.code()).isEqualTo("NOAUTH"))
                    .hasMessage("NOAUTH Authentication required.");
        }
    }

    @Test
    void readTimesOutWhenNothingArrives() {
        serveOnce(0, "");
        try (RespClient c = RespClient.connect("127.0.0.1", peer.getLocalPort(), Duration.ofMillis(200))) {
            assertThatThrownBy(c::read)
                    .isInstanceOf(UncheckedIOException.class)
                    .hasCauseInstanceOf(SocketTimeoutException.class);
        }
    }

    @Test
    void endOfStreamIsReported() throws Exception {
        CompletableFuture.runAsync(() -> {
            try {
                peer.accept().close();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        try (RespClient c = RespClient.connect("127.0.0.1", peer.getLocalPort())) {
            assertThatThrownBy(c::read).isInstanceOf(UncheckedIOException.class);
        }
    }

    @Test
    void connectFailureNamesTheAddress() throws Exception {
        int port = peer.getLocalPort();
        peer.close();
        assertThatThrownBy(() -> RespClient.connect("127.0.0.1", port, Duration.ofMillis(500)))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("127.0.0.1:" + port);
    }

    @Test
    void emptyCommandIsRejected() {
        serveOnce(0, "");
        try (RespClient c = RespClient.connect("127.0.0.1", peer.getLocalPort())) {
            assertThatThrownBy(c::command).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
