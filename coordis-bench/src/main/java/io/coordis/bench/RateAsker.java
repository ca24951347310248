package io.coordis.bench;

import io.coordis.ratelimit.RateLimit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Asks a rate limiter at a steady pace, for the accuracy scenarios: {@link #ask} runs threads that each ask for one
 * permit {@code perSecond} times a second, on a schedule (a late ask does not move the next one).
 *
 * <p>As a main program it is one asking JVM of {@code ratelimit-accuracy-skewed}, started by {@link RateAccuracy}
 * (under {@code faketime}): it connects, prints {@code READY}, and for every line {@code ASK <name> <millis>} asks
 * limiter {@code name} for that long and prints {@code DONE <granted> <asks> <first> <last> <clockOffsetMillis>}:
 * Redis's clock (microseconds) just before the first ask and just after the last reply, and how far this JVM's clock
 * is from Redis's. It exits when its stdin closes; on a failure it prints {@code FAILED <reason>} and exits 1.
 *
 * <p>Arguments: {@code implementation uri limit askers perSecond}, e.g. {@code coordis redis://127.0.0.1:6379 200/1s 1
 * 500}.
 */
public final class RateAsker {
    /** What a stretch of asking got: permits granted, and asks made. */
    record Tally(long granted, long asks) {
        Tally plus(Tally other) {
            return new Tally(granted + other.granted, asks + other.asks);
        }
    }

    private RateAsker() {
    }

    /**
     * Runs {@code askers} threads, each asking limiter {@code name} for a permit {@code perSecond} times a second, for
     * {@code duration}; returns what they got together.
     */
    static Tally ask(Limiting limiting, String name, int askers, int perSecond, Duration duration)
            throws InterruptedException {
        long pace = TimeUnit.SECONDS.toNanos(1) / perSecond;
        long[] granted = new long[askers];
        long[] asks = new long[askers];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] threads = new Thread[askers];
        long start = System.nanoTime();
        for (int t = 0; t < askers; t++) {
            int index = t;
            threads[t] = new Thread(() -> {
                try {
                    long next = start;
                    while (System.nanoTime() - start < duration.toNanos() && failure.get() == null) {
                        if (limiting.tryAcquire(name)) {
                            granted[index]++;
                        }
                        asks[index]++;
                        next += pace;
                        long sleep = next - System.nanoTime();
                        if (sleep > 0) {
                            TimeUnit.NANOSECONDS.sleep(sleep);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "asker-" + t);
            threads[t].start();
        }
        Tally tally = new Tally(0, 0);
        for (int t = 0; t < askers; t++) {
            threads[t].join();
            tally = tally.plus(new Tally(granted[t], asks[t]));
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an asking thread failed: " + failure.get(), failure.get());
        }
        return tally;
    }

    /** Redis's clock ({@code TIME}), in microseconds since the epoch. */
    static long redisMicros(StatefulRedisConnection<String, String> connection) {
        List<String> time = connection.sync().time();
        return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
    }

    public static void main(String[] args) {
        if (args.length != 5) {
            System.out.println("FAILED usage: RateAsker implementation uri limit askers perSecond");
            System.exit(2);
        }
        RedisClient client = RedisClient.create();
        try (Limiting limiting = Scenarios.limiting(args[0], args[1], RateLimit.parse(args[2]));
             StatefulRedisConnection<String, String> redis = client.connect(RedisURI.create(args[1]))) {
            int askers = Integer.parseInt(args[3]);
            int perSecond = Integer.parseInt(args[4]);
            limiting.tryAcquire("bench:rate:warm-up"); // connected before the first measured ask
            System.out.println("READY");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            String line;
            while ((line = in.readLine()) != null) {
                String[] ask = line.trim().split(" ");
                if (ask.length != 3 || !ask[0].equals("ASK")) {
                    throw new IllegalArgumentException("expected ASK <name> <millis>, got '" + line + "'");
                }
                long first = redisMicros(redis);
                Tally tally = ask(limiting, ask[1], askers, perSecond, Duration.ofMillis(Long.parseLong(ask[2])));
                long last = redisMicros(redis);
                long offset = System.currentTimeMillis() - last / 1_000;
                System.out.println("DONE " + tally.granted() + " " + tally.asks() + " " + first + " " + last + " " + offset);
            }
        } catch (Throwable e) {
            System.out.println("FAILED " + String.valueOf(e).replace('\n', ' '));
            e.printStackTrace();
            client.shutdown();
            System.exit(1);
        }
        client.shutdown();
        System.exit(0);
    }
}
