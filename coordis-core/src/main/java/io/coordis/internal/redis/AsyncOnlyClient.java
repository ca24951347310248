package io.coordis.internal.redis;

import io.lettuce.core.RedisChannelWriter;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.StatefulRedisConnectionImpl;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.protocol.PushHandler;
import io.lettuce.core.pubsub.PubSubEndpoint;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnectionImpl;
import io.lettuce.core.pubsub.api.sync.RedisPubSubCommands;
import io.lettuce.core.resource.ClientResources;

import java.time.Duration;

/**
 * A standalone Lettuce client whose connections have no synchronous face. Lettuce builds one for every connection
 * as a dynamic proxy over the several hundred methods of {@link RedisCommands}; generating that class is the
 * largest single cost of a new process's first connection (a short command pays it every time, and the class-data
 * archive cannot hold it), and Coordis only uses {@code async()}. {@code sync()} on these connections, pub/sub
 * connections included, answers {@code null}.
 */
final class AsyncOnlyClient extends RedisClient {

    AsyncOnlyClient(ClientResources resources, RedisURI uri) {
        super(resources, uri);
    }

    @Override
    protected <K, V> StatefulRedisConnectionImpl<K, V> newStatefulRedisConnection(RedisChannelWriter writer,
            PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
        return new Connection<>(writer, pushHandler, codec, timeout);
    }

    @Override
    protected <K, V> StatefulRedisPubSubConnectionImpl<K, V> newStatefulRedisPubSubConnection(PubSubEndpoint<K, V> endpoint,
            RedisChannelWriter writer, RedisCodec<K, V> codec, Duration timeout) {
        return new PubSubConnection<>(endpoint, writer, codec, timeout);
    }

    private static final class PubSubConnection<K, V> extends StatefulRedisPubSubConnectionImpl<K, V> {
        PubSubConnection(PubSubEndpoint<K, V> endpoint, RedisChannelWriter writer, RedisCodec<K, V> codec,
                Duration timeout) {
            super(endpoint, writer, codec, timeout);
        }

        @Override
        protected RedisPubSubCommands<K, V> newRedisSyncCommandsImpl() {
            return null;
        }
    }

    private static final class Connection<K, V> extends StatefulRedisConnectionImpl<K, V> {
        Connection(RedisChannelWriter writer, PushHandler pushHandler, RedisCodec<K, V> codec, Duration timeout) {
            super(writer, pushHandler, codec, timeout);
        }

        @Override
        protected RedisCommands<K, V> newRedisSyncCommandsImpl() {
            return null;
        }
    }
}
