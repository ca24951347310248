package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * What most quick loops compare on: one redis-server, a Coordis client and one raw Lettuce connection to it.
 * Closing closes the connection, the Lettuce client, the Coordis client and the server, in that order.
 */
final class QuickRun implements AutoCloseable {
    final RedisServer server;
    final Coordis coordis;
    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;
    /** The connection's synchronous commands. */
    final RedisCommands<String, String> raw;

    private QuickRun(RedisServer server, Coordis coordis, RedisClient client,
                     StatefulRedisConnection<String, String> connection) {
        this.server = server;
        this.coordis = coordis;
        this.client = client;
        this.connection = connection;
        this.raw = connection.sync();
    }

    static QuickRun start() {
        RedisServer server = RedisServer.start();
        Coordis coordis = null;
        RedisClient client = null;
        try {
            coordis = Coordis.connect(server.uri());
            client = RedisClient.create(server.uri());
            return new QuickRun(server, coordis, client, client.connect());
        } catch (RuntimeException e) {
            if (client != null) {
                client.shutdown();
            }
            if (coordis != null) {
                coordis.close();
            }
            server.close();
            throw e;
        }
    }

    /** Argument {@code i} as a whole number, or {@code otherwise} when it is not given. */
    static int arg(String[] args, int i, int otherwise) {
        return args.length > i ? Integer.parseInt(args[i]) : otherwise;
    }

    @Override
    public void close() {
        try {
            connection.close();
            client.shutdown();
        } finally {
            try {
                coordis.close();
            } finally {
                server.close();
            }
        }
    }
}
