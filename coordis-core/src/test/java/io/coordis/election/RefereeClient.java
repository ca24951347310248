package io.coordis.election;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A candidate's connection to the {@link ElectionReferee}; each call waits for the answer. Thread-safe. */
final class RefereeClient implements AutoCloseable {
    private final String id;
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    RefereeClient(int port, String id) {
        this.id = id;
        this.socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
            in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Sends one event; answers {@code true} for OK, {@code false} for REJECTED. */
    synchronized boolean send(String kind, long term) {
        try {
            out.write((id + " " + kind + " " + term + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            String answer = in.readLine();
            if (answer == null) {
                throw new IOException("referee closed the connection");
            }
            return answer.equals("OK");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
