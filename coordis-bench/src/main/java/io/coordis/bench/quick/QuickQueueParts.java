package io.coordis.bench.quick;

import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the reliable queue's per-message time goes: push alone (one producer) and take + ack alone (four
 * consumers on a full queue), each against raw Lettuce (LPUSH; BLMOVE + LREM) in the same run.
 * {@code coordis-bench/run quick QuickQueueParts [messages] [rounds]}.
 */
public final class QuickQueueParts {
    private QuickQueueParts() {
    }

    public static void main(String[] args) throws Exception {
        int messages = QuickRun.arg(args, 0, 20_000);
        int rounds = QuickRun.arg(args, 1, 3);
        try (QuickRun quick = QuickRun.start()) {
            ReliableQueue q = quick.coordis.reliableQueue("parts:coordis", QueueOptions.defaults());
            String rawList = "parts:raw";
            for (int r = 0; r <= rounds; r++) {
                long t0 = System.nanoTime();
                for (int m = 0; m < messages; m++) {
                    q.push(("message-" + m).getBytes());
                }
                long t1 = System.nanoTime();
                for (int m = 0; m < messages; m++) {
                    quick.raw.lpush(rawList, "message-" + m);
                }
                long t2 = System.nanoTime();
                double cPush = messages / ((t1 - t0) / 1e9);
                double rPush = messages / ((t2 - t1) / 1e9);
                double cTake = coordisConsume(q, messages);
                double rTake = rawConsume(quick.client, messages);
                if (r > 0) {
                    System.out.printf("round %d: push coordis %.0f/s raw %.0f/s ratio %.2f; take+ack (4 consumers) coordis %.0f/s raw %.0f/s ratio %.2f%n",
                            r, cPush, rPush, cPush / rPush, cTake, rTake, cTake / rTake);
                }
            }
        }
    }

    private static double coordisConsume(ReliableQueue q, int messages) throws Exception {
        AtomicInteger acked = new AtomicInteger();
        List<Consumer> consumers = new ArrayList<>();
        List<Callable<Void>> workers = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                Consumer c = q.consumer();
                consumers.add(c);
                workers.add(() -> {
                    while (acked.get() < messages) {
                        Optional<Delivery> got = c.take(Duration.ofMillis(50));
                        if (got.isPresent()) {
                            got.get().ack();
                            acked.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            return Workers.rate(messages, workers);
        } finally {
            consumers.forEach(Consumer::close);
        }
    }

    private static double rawConsume(RedisClient client, int messages) throws Exception {
        String list = "parts:raw";
        AtomicInteger acked = new AtomicInteger();
        List<StatefulRedisConnection<String, String>> conns = new ArrayList<>();
        List<Callable<Void>> workers = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                RedisCommands<String, String> sync = client.connect().sync();
                conns.add(sync.getStatefulConnection());
                String processing = "parts:raw:processing:" + i;
                workers.add(() -> {
                    while (acked.get() < messages) {
                        String v = sync.blmove(list, processing, LMoveArgs.Builder.rightLeft(), 0.05);
                        if (v != null) {
                            sync.lrem(processing, 1, v);
                            acked.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            return Workers.rate(messages, workers);
        } finally {
            conns.forEach(StatefulRedisConnection::close);
        }
    }
}
