package io.coordis.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection through a {@link FaultProxy}: the client's socket, the socket to the target and two pumping
 * threads, one per direction, that forward chunk by chunk under the proxy's current fault.
 *
 * <p>Thread-safe: {@link #close(boolean)} may be called from either pump and from the proxy; it acts once.
 */
final class ProxyLink {
    private static final Logger log = LoggerFactory.getLogger(FaultProxy.class);
    private static final int CHUNK = 16 * 1024;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    private final FaultProxy proxy;
    private final Socket client;
    private final int id;
    private volatile Socket upstream;
    private final AtomicBoolean done = new AtomicBoolean();

    ProxyLink(FaultProxy proxy, Socket client, int id) {
        this.proxy = proxy;
        this.client = client;
        this.id = id;
    }

    /** Connects to the target, starts the server-to-client pump and pumps client-to-server on this thread. */
    void run() {
        Socket up = new Socket();
        try {
            client.setTcpNoDelay(true);
            up.setTcpNoDelay(true);
            up.connect(proxy.targetAddress(), (int) CONNECT_TIMEOUT.toMillis());
        } catch (IOException e) {
            log.debug("fault proxy {} cannot reach {}: {}", proxy.address(), proxy.target(), e.toString());
            RespClient.closeQuietly(up);
            close(true);
            return;
        }
        upstream = up;
        if (done.get()) {
            reset(up);
            return;
        }
        proxy.newThread("faultproxy-" + proxy.port() + "-" + id + "-s2c", () -> pump(up, client, false)).start();
        pump(client, up, true);
    }

    private void pump(Socket from, Socket to, boolean clientToServer) {
        byte[] buf = new byte[CHUNK];
        try {
            InputStream in = new BufferedInputStream(from.getInputStream(), CHUNK);
            OutputStream out = to.getOutputStream();
            while (!done.get()) {
                int n = in.read(buf);
                if (n < 0) {
                    break;
                }
                if (!proxy.awaitForwarding(done)) {
                    break;
                }
                if (!clientToServer && proxy.takeDrop()) {
                    // the read starts at a reply's first byte: skip that reply, reading on as far as it goes
                    ByteArrayInputStream first = new ByteArrayInputStream(buf, 0, n);
                    Resp.skipOne(new SequenceInputStream(first, in));
                    proxy.dropped();
                    n = first.read(buf, 0, first.available());
                    if (n <= 0) {
                        continue;
                    }
                    // what followed the dropped reply in the same read passes through as usual
                }
                Duration delay = proxy.delay();
                if (!delay.isZero()) {
                    Thread.sleep(delay.toMillis(), delay.toNanosPart() % 1_000_000);
                }
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // connection reset, closed by the other pump, or proxy closing
        } finally {
            close(false);
        }
    }

    /**
     * Closes both sockets, abruptly (a reset the peers see) when {@code abortive}. Acts once.
     *
     * @param abortive whether to reset rather than close
     */
    void close(boolean abortive) {
        if (!done.compareAndSet(false, true)) {
            return;
        }
        proxy.removed(this);
        Socket up = upstream;
        if (abortive) {
            reset(client);
            if (up != null) {
                reset(up);
            }
        } else {
            RespClient.closeQuietly(client);
            RespClient.closeQuietly(up);
        }
    }

    /** Closes {@code s} with SO_LINGER 0, so its peer sees a connection reset. */
    static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // closing anyway
        }
        RespClient.closeQuietly(s);
    }
}
