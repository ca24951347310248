package io.coordis.testkit.fault;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The loopback TCP side of a {@link FencedResource}: accepts connections on a free port and serves its line
 * protocol, one daemon thread per connection, each request judged by the resource and answered with one line.
 * A malformed request is answered {@code ERR} and counted by the resource as a protocol error.
 *
 * <p>Thread-safe; {@link #close()} ends every connection.
 */
final class LineServer implements AutoCloseable {
    private final FencedResource resource;
    private final ServerSocket server;
    private final Thread acceptor;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    LineServer(FencedResource resource) {
        this.resource = resource;
        try {
            server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException("cannot bind a loopback port for the fenced resource", e);
        }
        acceptor = daemon("fenced-resource-accept", this::acceptLoop);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Stops listening, closes every connection and waits up to 2 s for the acceptor to end. Idempotent. */
    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // closing
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing
            }
        }
        try {
            acceptor.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                return;
            }
            sockets.add(s);
            daemon("fenced-resource-" + s.getPort(), () -> serve(s)).start();
        }
    }

    private void serve(Socket s) {
        try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
            s.setTcpNoDelay(true);
            OutputStream out = s.getOutputStream();
            String line;
            while ((line = in.readLine()) != null) {
                String answer = handle(line);
                if (answer == null) {
                    return;
                }
                out.write((answer + "\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // client gone (killed) or resource closing
        } finally {
            sockets.remove(s);
        }
    }

    /** The answer to one request, or null to end the connection (the resource closed before GO). */
    private String handle(String line) throws InterruptedException {
        String[] p = line.trim().split(" ");
        try {
            if (p.length != 3) {
                throw new IllegalArgumentException("expected: VERB client token");
            }
            long token = Long.parseLong(p[2]);
            return switch (p[0]) {
                case "HELLO" -> resource.greet(p[1]);
                case "ENTER" -> {
                    resource.enter(p[1], token);
                    yield "OK";
                }
                case "SHARE" -> {
                    resource.share(p[1], token);
                    yield "OK";
                }
                case "WRITE" -> resource.write(p[1], token) ? "OK" : "STALE";
                case "EXIT" -> {
                    resource.exit(p[1], token);
                    yield "OK";
                }
                default -> throw new IllegalArgumentException("unknown verb");
            };
        } catch (RuntimeException e) {
            resource.badRequest(line, e);
            return "ERR";
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }
}
