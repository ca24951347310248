package io.coordis.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.util.function.Consumer;

/** Raw Lettuce: one connection that PUBLISHes, one pub/sub connection with a listener that SUBSCRIBEs. */
final class LettuceSignaling implements Signaling {
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> publisher;
    private final StatefulRedisPubSubConnection<String, String> subscriber;

    LettuceSignaling(String uri) {
        this.client = RedisClient.create(uri);
        this.publisher = client.connect();
        this.subscriber = client.connectPubSub();
    }

    @Override
    public void subscribe(String channel, Consumer<String> receiver) {
        subscriber.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String message) {
                receiver.accept(message);
            }
        });
        subscriber.sync().subscribe(channel);
    }

    @Override
    public void publish(String channel, String data) {
        publisher.sync().publish(channel, data);
    }

    @Override
    public void close() {
        subscriber.close();
        publisher.close();
        client.shutdown();
    }
}
