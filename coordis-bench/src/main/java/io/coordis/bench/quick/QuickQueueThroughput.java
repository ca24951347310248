package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.testkit.RedisServer;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Reliable queue throughput, 1 producer + 4 consumers (push, take, ack), per message and batched,
 * against the same cycle in raw Lettuce (LPUSH, BLMOVE into a processing list, LREM), interleaved in one
 * run on one redis-server; per message both with the ack and the next take in one call ({@code ackAndTake}) and
 * apart. A first ratio, not a benchmark suite. Run with
 * {@code coordis-bench/run quick QuickQueueThroughput [messages] [rounds] [batch]}.
 */
public final class QuickQueueThroughput {
    private static final int CONSUMERS = 4;

    interface Mode {
        double run(int messages) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        int messages = QuickRun.arg(args, 0, 20_000);
        int rounds = QuickRun.arg(args, 1, 3);
        int batch = QuickRun.arg(args, 2, 32);
        try (RedisServer server = RedisServer.start();
             Coordis coordis = Coordis.connect(server.uri())) {
            RedisClient client = RedisClient.create(server.uri());
            try {
                ReliableQueue q = coordis.reliableQueue("quick:coordis", QueueOptions.defaults().withSlots(batch));
                Mode coordisSingle = n -> coordis(q, n, 1, true);
                Mode coordisSeparate = n -> coordis(q, n, 1, false);
                Mode coordisBatch = n -> coordis(q, n, batch, false);
                Mode rawSingle = n -> raw(client, n, 1);
                Mode rawBatch = n -> raw(client, n, batch);
                coordisSingle.run(messages / 4);
                coordisSeparate.run(messages / 4);
                rawSingle.run(messages / 4);
                coordisBatch.run(messages / 4);
                rawBatch.run(messages / 4);
                System.out.printf("redis %s, %d messages per run, 1 producer + %d consumers, batch %d, %d rounds%n",
                        server.version(), messages, CONSUMERS, batch, rounds);
                for (int r = 0; r < rounds; r++) {
                    double cs = coordisSingle.run(messages);
                    double ct = coordisSeparate.run(messages);
                    double rs = rawSingle.run(messages);
                    double rb = rawBatch.run(messages);
                    double cb = coordisBatch.run(messages);
                    System.out.printf("round %d: per message coordis %.0f msg/s (ack and take apart %.0f), raw lettuce "
                            + "%.0f msg/s, ratio %.2f (apart %.2f); batched coordis %.0f msg/s, raw lettuce %.0f msg/s, "
                            + "ratio %.2f%n", r + 1, cs, ct, rs, cs / rs, ct / rs, cb, rb, cb / rb);
                }
            } finally {
                client.shutdown();
            }
        }
    }

    /** With {@code combined}, per message each ack also takes the next ({@link Delivery#ackAndTake}). */
    private static double coordis(ReliableQueue q, int messages, int batch, boolean combined) throws Exception {
        AtomicInteger acked = new AtomicInteger();
        List<Consumer> consumers = new ArrayList<>();
        for (int i = 0; i < CONSUMERS; i++) {
            consumers.add(q.consumer());
        }
        try {
            List<Callable<Void>> workers = new ArrayList<>();
            workers.add(() -> {
                List<byte[]> chunk = new ArrayList<>();
                for (int m = 0; m < messages; m++) {
                    byte[] payload = ("message-" + m).getBytes();
                    if (batch == 1) {
                        q.push(payload);
                    } else {
                        chunk.add(payload);
                        if (chunk.size() == batch || m == messages - 1) {
                            q.pushAll(chunk);
                            chunk = new ArrayList<>();
                        }
                    }
                }
                return null;
            });
            for (Consumer c : consumers) {
                workers.add(() -> {
                    Delivery held = null;
                    while (combined && acked.get() < messages) {
                        Delivery d = held != null ? held : c.take(Duration.ofMillis(100)).orElse(null);
                        if (d != null) {
                            held = d.ackAndTake(Duration.ofMillis(100)).orElse(null);
                            acked.incrementAndGet();
                        }
                    }
                    while (!combined && acked.get() < messages) {
                        List<Delivery> got = c.take(batch, Duration.ofMillis(100));
                        if (got.isEmpty()) {
                            continue;
                        }
                        if (batch == 1) {
                            got.get(0).ack();
                        } else {
                            c.ack(got);
                        }
                        acked.addAndGet(got.size());
                    }
                    return null;
                });
            }
            return Workers.rate(messages, workers);
        } finally {
            consumers.forEach(Consumer::close);
        }
    }

    private static double raw(RedisClient client, int messages, int batch) throws Exception {
        String list = "quick:raw";
        AtomicInteger acked = new AtomicInteger();
        List<StatefulRedisConnection<String, String>> conns = new ArrayList<>();
        for (int i = 0; i <= CONSUMERS; i++) {
            conns.add(client.connect());
        }
        try {
            List<Callable<Void>> workers = new ArrayList<>();
            RedisCommands<String, String> producer = conns.get(0).sync();
            workers.add(() -> {
                List<String> chunk = new ArrayList<>();
                for (int m = 0; m < messages; m++) {
                    String payload = "message-" + m;
                    if (batch == 1) {
                        producer.lpush(list, payload);
                    } else {
                        chunk.add(payload);
                        if (chunk.size() == batch || m == messages - 1) {
                            producer.lpush(list, chunk.toArray(String[]::new));
                            chunk.clear();
                        }
                    }
                }
                return null;
            });
            for (int i = 1; i <= CONSUMERS; i++) {
                StatefulRedisConnection<String, String> conn = conns.get(i);
                String processing = "quick:raw:processing:" + i;
                workers.add(() -> {
                    RedisCommands<String, String> sync = conn.sync();
                    RedisAsyncCommands<String, String> async = conn.async();
                    while (acked.get() < messages) {
                        String first = sync.blmove(list, processing, LMoveArgs.Builder.rightLeft(), 0.1);
                        if (first == null) {
                            continue;
                        }
                        List<String> got = new ArrayList<>(List.of(first));
                        if (batch > 1) {
                            List<RedisFuture<String>> more = new ArrayList<>();
                            for (int k = 1; k < batch; k++) {
                                more.add(async.lmove(list, processing, LMoveArgs.Builder.rightLeft()));
                            }
                            for (RedisFuture<String> f : more) {
                                String v = f.get();
                                if (v != null) {
                                    got.add(v);
                                }
                            }
                        }
                        List<RedisFuture<Long>> removed = new ArrayList<>();
                        for (String v : got) {
                            removed.add(async.lrem(processing, 1, v));
                        }
                        for (RedisFuture<Long> f : removed) {
                            f.get();
                        }
                        acked.addAndGet(got.size());
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
