package io.coordis.bench;

import org.redisson.Redisson;
import org.redisson.api.RBlockingDeque;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The reliable-move queue in Redisson's open-source API (its {@code RReliableQueue} implementation is not
 * in the open-source jar): {@code RDeque.addFirst} ({@code LPUSH}), {@code pollLastAndOfferFirstTo}
 * ({@code BRPOPLPUSH} into the consumer's processing list), {@code RList.remove} ({@code LREM … 1}).
 */
final class RedissonQueueing implements Queueing {
    private final RedissonClient client;

    RedissonQueueing(String uri) {
        this.client = Redisson.create(RedissonLocking.config(uri, null));
    }

    private RBlockingDeque<String> deque(String name) {
        return client.getBlockingDeque(name, StringCodec.INSTANCE);
    }

    @Override
    public void push(String queue, String message) {
        deque(queue).addFirst(message);
    }

    @Override
    public String take(String queue, String consumer, Duration timeout) throws InterruptedException {
        return deque(queue).pollLastAndOfferFirstTo(LettuceQueueing.processing(queue, consumer), timeout.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void ack(String queue, String consumer, String message) {
        client.<String>getList(LettuceQueueing.processing(queue, consumer), StringCodec.INSTANCE).remove(message);
    }

    @Override
    public long pending(String queue, List<String> consumers) {
        long n = deque(queue).size();
        for (String c : consumers) {
            n += client.getList(LettuceQueueing.processing(queue, c), StringCodec.INSTANCE).size();
        }
        return n;
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
