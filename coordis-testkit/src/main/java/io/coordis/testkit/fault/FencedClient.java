package io.coordis.testkit.fault;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** One client thread's connection to a {@link FencedResource} (possibly in another process). Not thread-safe. */
public final class FencedClient implements AutoCloseable {
    private final String client;
    private final Socket socket;
    private final BufferedReader in;
    private final OutputStream out;

    private FencedClient(String client, Socket socket) throws IOException {
        this.client = client;
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        this.out = socket.getOutputStream();
    }

    /**
     * Connects to a resource at {@code host:port} as {@code client} (no spaces).
     *
     * @param address the resource's {@code host:port}
     * @param client  this client's name, without spaces
     * @return the connected client
     */
    public static FencedClient connect(String address, String client) {
        if (client.isEmpty() || client.contains(" ")) {
            throw new IllegalArgumentException("client name must be non-empty without spaces: '" + client + "'");
        }
        int colon = address.lastIndexOf(':');
        try {
            return new FencedClient(client, new Socket(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach the fenced resource at " + address, e);
        }
    }

    /** Announces this client and blocks until the resource says GO (see {@link FencedResource#go()}). */
    public void awaitStart() {
        if (!call("HELLO", 0).equals("GO")) {
            throw new IllegalStateException("fenced resource did not say GO");
        }
    }

    /**
     * Enters with an exclusive hold: any other holder inside conflicts with it.
     *
     * @param token the fencing number of the hold
     */
    public void enter(long token) {
        call("ENTER", token);
    }

    /**
     * Enters with a shared hold (a reader): only exclusive holders inside conflict with it.
     *
     * @param token the fencing number of the hold
     */
    public void share(long token) {
        call("SHARE", token);
    }

    /**
     * True when the resource accepted the write; false when it refused it as stale.
     *
     * @param token the fencing number of the hold
     * @return {@code true} when accepted
     */
    public boolean write(long token) {
        return call("WRITE", token).equals("OK");
    }

    /**
     * Leaves the resource.
     *
     * @param token the fencing number the hold entered with
     */
    public void exit(long token) {
        call("EXIT", token);
    }

    private String call(String verb, long token) {
        try {
            out.write((verb + " " + client + " " + token + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            String answer = in.readLine();
            if (answer == null || answer.equals("ERR")) {
                throw new IllegalStateException("fenced resource answered " + answer + " to " + verb);
            }
            return answer;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
