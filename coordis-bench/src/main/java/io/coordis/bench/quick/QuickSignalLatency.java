package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.signal.Signal;
import io.coordis.signal.Signals;
import io.coordis.signal.Waiter;
import io.coordis.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Signal-to-wake latency at a steady rate: a Coordis {@link Waiter} woken by a Coordis signal, against a
 * raw Lettuce PUBLISH waking a thread blocked on a queue fed by a raw Lettuce subscriber, interleaved
 * in one run on one redis-server (each side at the given rate). Latency runs from just before the
 * signal is sent to the moment the waiting thread runs again. Not a benchmark suite: a first figure.
 * Run with {@code coordis-bench/run quick QuickSignalLatency [perSecond] [seconds]}.
 */
public final class QuickSignalLatency {
    private static final String RAW_CHANNEL = "lat:raw";

    public static void main(String[] args) throws Exception {
        int rate = args.length > 0 ? Integer.parseInt(args[0]) : 1_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        try (RedisServer server = RedisServer.start();
             Coordis receiving = Coordis.connect(server.uri());
             Coordis sending = Coordis.connect(server.uri())) {
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, String> pub = client.connect();
                 StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub()) {
                BlockingQueue<String> rawInbox = new LinkedBlockingQueue<>();
                sub.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        rawInbox.add(message);
                    }
                });
                sub.sync().subscribe(RAW_CHANNEL);

                run(rate, 1, receiving.signals(), sending.signals(), pub, rawInbox, null, null); // warm-up
                long[] coordis = new long[rate * seconds];
                long[] raw = new long[rate * seconds];
                for (int s = 0; s < seconds; s++) {
                    run(rate, s, receiving.signals(), sending.signals(), pub, rawInbox, coordis, raw);
                }
                System.out.printf("redis %s, %d signals/s per side for %d s, interleaved, one JVM, loopback%n",
                        server.version(), rate, seconds);
                report("coordis waiter   ", coordis);
                report("raw lettuce pair ", raw);
            } finally {
                client.shutdown();
            }
        }
    }

    /**
     * One second: {@code rate} fresh waiters are subscribed first (not timed), then every 1/rate s one
     * Coordis signal and one raw PUBLISH go out, alternating which goes first.
     */
    private static void run(int rate, int second, Signals receiving, Signals sending,
                            StatefulRedisConnection<String, String> pub, BlockingQueue<String> rawInbox,
                            long[] coordisOut, long[] rawOut) throws Exception {
        List<Waiter> waiters = new ArrayList<>(rate);
        for (int i = 0; i < rate; i++) {
            waiters.add(receiving.waiter("lat:coordis:" + i));
        }
        long[] coordisLatency = new long[rate];
        long[] rawLatency = new long[rate];
        Thread coordisReceiver = new Thread(() -> {
            try {
                for (int i = 0; i < rate; i++) {
                    Signal s = waiters.get(i).await(Duration.ofSeconds(10)).orElseThrow();
                    coordisLatency[i] = System.nanoTime() - Long.parseLong(s.data());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "coordis-receiver");
        Thread rawReceiver = new Thread(() -> {
            try {
                for (int i = 0; i < rate; i++) {
                    String m = rawInbox.poll(10, TimeUnit.SECONDS);
                    rawLatency[i] = System.nanoTime() - Long.parseLong(m);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "raw-receiver");
        coordisReceiver.start();
        rawReceiver.start();
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        for (int i = 0; i < rate; i++) {
            long wait = start + i * interval - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            if (i % 2 == 0) {
                sending.signal("lat:coordis:" + i, Long.toString(System.nanoTime()));
                pub.sync().publish(RAW_CHANNEL, Long.toString(System.nanoTime()));
            } else {
                pub.sync().publish(RAW_CHANNEL, Long.toString(System.nanoTime()));
                sending.signal("lat:coordis:" + i, Long.toString(System.nanoTime()));
            }
        }
        coordisReceiver.join();
        rawReceiver.join();
        waiters.forEach(Waiter::close);
        if (coordisOut != null) {
            System.arraycopy(coordisLatency, 0, coordisOut, second * rate, rate);
            System.arraycopy(rawLatency, 0, rawOut, second * rate, rate);
        }
    }

    private static void report(String what, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        System.out.printf("%s n=%d  p50 %6.1f us  p90 %6.1f us  p99 %7.1f us  p99.9 %7.1f us  max %7.1f us%n", what,
                sorted.length, at(sorted, 0.50), at(sorted, 0.90), at(sorted, 0.99), at(sorted, 0.999),
                sorted[sorted.length - 1] / 1e3);
    }

    private static double at(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)] / 1e3;
    }
}
