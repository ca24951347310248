package io.coordis.bench;

import org.redisson.Redisson;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/** Redisson {@link RTopic} with the string codec: {@code addListener} to receive, {@code publish} to send. */
final class RedissonSignaling implements Signaling {
    private final RedissonClient client;
    private final Map<String, RTopic> topics = new ConcurrentHashMap<>();
    private RTopic topic;

    RedissonSignaling(String uri) {
        this.client = Redisson.create(RedissonLocking.config(uri, null));
    }

    @Override
    public void subscribe(String channel, Consumer<String> receiver) {
        topic = client.getTopic(channel, StringCodec.INSTANCE);
        topic.addListener(String.class, (ch, message) -> receiver.accept(message));
    }

    @Override
    public void publish(String channel, String data) {
        topics.computeIfAbsent(channel, c -> client.getTopic(c, StringCodec.INSTANCE)).publish(data);
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
