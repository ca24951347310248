package io.coordis.bench;

import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The reliable queue in raw Lettuce commands: {@code LPUSH queue msg}; {@code BLMOVE queue
 * <queue>:processing:<consumer> RIGHT LEFT timeout}; {@code LREM <processing> 1 msg}. One shared connection
 * for pushes and acks, one per consumer for its blocking takes (a blocked command holds its connection).
 */
final class LettuceQueueing implements Queueing {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> shared;
    private final Map<String, StatefulRedisConnection<String, String>> blocking = new ConcurrentHashMap<>();

    LettuceQueueing(String uri) {
        this.client = RedisClient.create(uri);
        this.shared = client.connect();
    }

    static String processing(String queue, String consumer) {
        return queue + ":processing:" + consumer;
    }

    @Override
    public void push(String queue, String message) {
        shared.sync().lpush(queue, message);
    }

    @Override
    public String take(String queue, String consumer, Duration timeout) {
        RedisCommands<String, String> c = blocking.computeIfAbsent(consumer, k -> client.connect()).sync();
        return c.blmove(queue, processing(queue, consumer), LMoveArgs.Builder.rightLeft(), timeout.toMillis() / 1000.0);
    }

    @Override
    public void ack(String queue, String consumer, String message) {
        shared.sync().lrem(processing(queue, consumer), 1, message);
    }

    @Override
    public long pending(String queue, List<String> consumers) {
        long n = shared.sync().llen(queue);
        for (String c : consumers) {
            n += shared.sync().llen(processing(queue, c));
        }
        return n;
    }

    @Override
    public void close() {
        blocking.values().forEach(StatefulRedisConnection::close);
        shared.close();
        client.shutdown();
    }
}
