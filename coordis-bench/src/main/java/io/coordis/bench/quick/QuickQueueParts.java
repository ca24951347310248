package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.RedisServer;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
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
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        try (RedisServer server = RedisServer.start(); Coordis coordis = Coordis.connect(server.uri())) {
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                ReliableQueue q = coordis.reliableQueue("parts:coordis", QueueOptions.defaults());
                RedisCommands<String, String> raw = conn.sync();
                String rawList = "parts:raw";
                for (int r = 0; r <= rounds; r++) {
                    long t0 = System.nanoTime();
                    for (int m = 0; m < messages; m++) {
                        q.push(("message-" + m).getBytes());
                    }
                    long t1 = System.nanoTime();
                    for (int m = 0; m < messages; m++) {
                        raw.lpush(rawList, "message-" + m);
                    }
                    long t2 = System.nanoTime();
                    double cPush = messages / ((t1 - t0) / 1e9);
                    double rPush = messages / ((t2 - t1) / 1e9);
                    double cTake = coordisConsume(q, messages);
                    double rTake = rawConsume(client, messages);
                    if (r > 0) {
                        System.out.printf("round %d: push coordis %.0f/s raw %.0f/s ratio %.2f; take+ack (4 consumers) coordis %.0f/s raw %.0f/s ratio %.2f%n",
                                r, cPush, rPush, cPush / rPush, cTake, rTake, cTake / rTake);
                    }
                }
            } finally {
                client.shutdown();
            }
        }
    }

    private static double coordisConsume(ReliableQueue q, int messages) throws Exception {
        AtomicInteger acked = new AtomicInteger();
        List<Consumer> consumers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            consumers.add(q.consumer());
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        long start = System.nanoTime();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (Consumer c : consumers) {
                running.add(pool.submit(() -> {
                    while (acked.get() < messages) {
                        Optional<Delivery> got = c.take(Duration.ofMillis(50));
                        if (got.isPresent()) {
                            got.get().ack();
                            acked.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
            return messages / ((System.nanoTime() - start) / 1e9);
        } finally {
            pool.shutdownNow();
            consumers.forEach(Consumer::close);
        }
    }

    private static double rawConsume(RedisClient client, int messages) throws Exception {
        String list = "parts:raw";
        AtomicInteger acked = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<StatefulRedisConnection<String, String>> conns = new ArrayList<>();
        long start = System.nanoTime();
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                StatefulRedisConnection<String, String> conn = client.connect();
                conns.add(conn);
                String processing = "parts:raw:processing:" + i;
                running.add(pool.submit(() -> {
                    RedisCommands<String, String> sync = conn.sync();
                    while (acked.get() < messages) {
                        String v = sync.blmove(list, processing, LMoveArgs.Builder.rightLeft(), 0.05);
                        if (v != null) {
                            sync.lrem(processing, 1, v);
                            acked.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                f.get();
            }
            return messages / ((System.nanoTime() - start) / 1e9);
        } finally {
            pool.shutdownNow();
            conns.forEach(StatefulRedisConnection::close);
        }
    }
}
