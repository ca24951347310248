package io.coordis.soak;

import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A soak's own raw connection to one Redis server, for reading what is stored (list lengths, keys): a call
 * that fails (the server was killed, is restarting or loading) connects again and is retried for up to 15 s.
 * Thread-safe.
 */
final class Watch implements AutoCloseable {
    private static final int ATTEMPTS = 150;

    private final RedisServer server;
    private RespClient client;

    Watch(RedisServer server) {
        this.server = server;
    }

    synchronized Object command(String... args) {
        RuntimeException last = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
            try {
                if (client == null) {
                    client = RespClient.connect(server);
                }
                return client.command(args);
            } catch (RuntimeException e) {
                last = e;
                reconnect();
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
        throw last;
    }

    long number(String... args) {
        return (Long) command(args);
    }

    /** The keys matching {@code pattern} (SCAN). */
    List<String> keys(String pattern) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) command("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
            cursor = text(reply.get(0));
            for (Object k : (List<?>) reply.get(1)) {
                keys.add(text(k));
            }
        } while (!cursor.equals("0"));
        return keys;
    }

    /** Drops the connection; the next call opens a new one (after a restart of the server). */
    synchronized void reconnect() {
        if (client != null) {
            client.close();
            client = null;
        }
    }

    @Override
    public void close() {
        reconnect();
    }

    static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }
}
