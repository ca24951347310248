package io.coordis.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One worker's connection to a {@link Checker}. Every call blocks until the referee answered, so an
 * event is recorded before the worker goes on. Not thread-safe: one client per worker thread.
 */
public final class CheckerClient implements AutoCloseable {
    private final String worker;
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    public CheckerClient(int port, String worker) {
        this.worker = worker;
        this.socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            socket.setSoTimeout((int) Duration.ofSeconds(60).toMillis());
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out = socket.getOutputStream();
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("cannot reach the checker on port " + port, e);
        }
    }

    /** Announces this worker and blocks until the checker says GO (at most 60 s). */
    public void awaitStart() {
        ask("HELLO " + worker, "GO");
    }

    public void enter(long fence) {
        ask("ENTER " + worker + " " + fence, "OK");
    }

    public void exit(long fence) {
        ask("EXIT " + worker + " " + fence, "OK");
    }

    private void ask(String request, String expected) {
        try {
            out.write((request + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            String answer = in.readLine();
            if (!expected.equals(answer)) {
                throw new IllegalStateException("checker answered '" + answer + "' to '" + request + "'");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("checker unreachable during '" + request + "'", e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
