package io.coordis.redis.runner;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The runner's own readiness probe for a plain server without a password: the server's log says, under the
 * process's PID, that it accepts connections (so the port is its own, not another process's), and an inline
 * {@code PING} on a fresh connection is answered {@code +PONG}. Stateless.
 */
final class Ping implements RedisProcessBuilder.Probe {

    private static final int TIMEOUT_MILLIS = 500;

    private final Path logFile;

    Ping(Path logFile) {
        this.logFile = logFile;
    }

    @Override
    public String check(String host, int port, long pid) {
        String ready = pid + ":";
        List<String> log = ProcessSupport.tail(logFile, 200).lines().toList();
        if (log.stream().noneMatch(l -> l.startsWith(ready) && l.contains("Ready to accept connections"))) {
            return "the log does not say it is ready yet";
        }
        try (Socket socket = new Socket()) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String reply = firstLine(socket.getInputStream());
            if (reply.equals("+PONG")) {
                return null;
            }
            if (reply.startsWith("-LOADING")) {
                return reply.substring(1);
            }
            throw new IllegalStateException(reply.startsWith("-") ? reply.substring(1) : "unexpected reply " + reply);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot PING " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    private static String firstLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int b = in.read(); b >= 0 && b != '\n'; b = in.read()) {
            if (b != '\r') {
                line.append((char) b);
            }
        }
        return line.toString();
    }
}
