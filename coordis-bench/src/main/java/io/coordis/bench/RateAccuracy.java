package io.coordis.bench;

import io.coordis.bench.RateAsker.Tally;
import io.coordis.ratelimit.RateLimit;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A rate limiter's accuracy: askers together ask ten times a limit's rate for a permit, and the permits granted are
 * held against what the limit allows over the time they asked, {@code burst + time / interval}, time read from Redis's
 * clock ({@code TIME}) before the first ask and after the last reply (of the first and the last asker to start and end). Every {@link #run} asks a limiter name of its
 * own, so each starts full and the allowance includes one burst. The askers are threads of this JVM, or other JVMs
 * whose clocks {@code faketime} moves (one per skew, each asking as one thread of {@link RateAsker}).
 *
 * <p>Figures: {@code ops} (asks), {@code seconds} (Redis's clock), {@code opsPerSec}, {@code granted},
 * {@code allowed}, {@code grantedPct} (granted ÷ allowed × 100), {@code errorPct} (grantedPct − 100: above 0
 * over-granted), {@code errorAbsPct}; with skewed clocks also {@code clockOffsetMinMin} and {@code clockOffsetMaxMin},
 * the asking JVMs' clocks against Redis's (minutes).
 */
final class RateAccuracy implements Workload {
    /**
     * What askers got, and the window they asked in on Redis's clock (microseconds), from just before the first ask
     * to just after the last reply.
     */
    private record Asked(Tally tally, long first, long last) {
    }

    /** The askers of one run: ask limiter {@code name} for {@code duration}. */
    private interface Askers extends AutoCloseable {
        Asked ask(String name, Duration duration) throws Exception;

        /** Figures of the last {@link #ask} beyond the tally; none by default. */
        default Map<String, Double> figures() {
            return Map.of();
        }

        @Override
        void close();
    }

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final RateLimit limit;
    private final Askers askers;
    private int runs;

    private RateAccuracy(RateLimit limit, Askers askers) {
        this.limit = limit;
        this.askers = askers;
    }

    /** {@code askers} threads of this JVM on {@code limiting}, each asking {@code perSecond} times a second. */
    static RateAccuracy threads(Limiting limiting, String uri, RateLimit limit, int askers, int perSecond) {
        RedisClient client = RedisClient.create();
        StatefulRedisConnection<String, String> redis = client.connect(RedisURI.create(uri));
        return new RateAccuracy(limit, new Askers() {
            @Override
            public Asked ask(String name, Duration duration) throws InterruptedException {
                long first = RateAsker.redisMicros(redis);
                Tally tally = RateAsker.ask(limiting, name, askers, perSecond, duration);
                return new Asked(tally, first, RateAsker.redisMicros(redis));
            }

            @Override
            public void close() {
                limiting.close();
                redis.close();
                client.shutdown();
            }
        });
    }

    /**
     * One {@link RateAsker} JVM of implementation {@code impl} per skew, its clock moved by that skew, each asking
     * {@code perSecond} times a second.
     *
     * @throws IllegalStateException when {@code faketime} is missing, or a JVM does not start
     */
    static RateAccuracy skewedProcesses(String impl, String uri, RateLimit limit, List<Duration> skews, int perSecond)
            throws InterruptedException {
        return new RateAccuracy(limit, new SkewedAskers(impl, uri, limit, skews, perSecond));
    }

    /** {@link RateAsker} JVMs under {@code faketime}, one per skew; each checks after a run that its clock was moved. */
    private static final class SkewedAskers implements Askers {
        private final List<Duration> skews;
        private final List<ChildRun> children = new ArrayList<>();
        private final Map<String, Double> figures = new LinkedHashMap<>();

        SkewedAskers(String impl, String uri, RateLimit limit, List<Duration> skews, int perSecond)
                throws InterruptedException {
            this.skews = List.copyOf(skews);
            try {
                for (int i = 0; i < skews.size(); i++) { // one at a time: JVMs starting together on 2 cores time out connecting
                    ChildRun c = ChildRun.start("asker " + i + " (" + Faketime.spec(skews.get(i)) + ")",
                            Faketime.launcher(skews.get(i)),
                            List.of("-Xmx256m", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"), RateAsker.class,
                            List.of(impl, uri, limit.toString(), "1", Integer.toString(perSecond)));
                    children.add(c);
                    c.await("READY", START_TIMEOUT);
                }
            } catch (RuntimeException | InterruptedException e) {
                close();
                throw e;
            }
        }

        @Override
        public Asked ask(String name, Duration duration) throws InterruptedException {
            for (ChildRun c : children) {
                c.send("ASK " + name + " " + duration.toMillis());
            }
            Tally tally = new Tally(0, 0);
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            double minOffset = Double.MAX_VALUE;
            double maxOffset = -Double.MAX_VALUE;
            for (int i = 0; i < children.size(); i++) {
                String[] done = children.get(i).await("DONE", duration.plus(START_TIMEOUT)).split(" ");
                tally = tally.plus(new Tally(Long.parseLong(done[0]), Long.parseLong(done[1])));
                first = Math.min(first, Long.parseLong(done[2]));
                last = Math.max(last, Long.parseLong(done[3]));
                Duration offset = Duration.ofMillis(Long.parseLong(done[4]));
                if (offset.minus(skews.get(i)).abs().compareTo(Duration.ofMinutes(1)) > 0) {
                    throw new IllegalStateException("faketime did not move the clock of asker " + i + ": asked for "
                            + Faketime.spec(skews.get(i)) + ", it is " + offset.toSeconds() + " s from Redis's");
                }
                minOffset = Math.min(minOffset, offset.toMillis() / 60_000.0);
                maxOffset = Math.max(maxOffset, offset.toMillis() / 60_000.0);
            }
            figures.put("clockOffsetMinMin", minOffset);
            figures.put("clockOffsetMaxMin", maxOffset);
            return new Asked(tally, first, last);
        }

        @Override
        public Map<String, Double> figures() {
            return figures;
        }

        @Override
        public void close() {
            for (ChildRun c : children) {
                try {
                    c.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    @Override
    public Map<String, Double> run(Duration duration) throws Exception {
        String name = "bench:rate:accuracy:" + ++runs;
        Asked asked = askers.ask(name, duration);
        Tally tally = asked.tally();
        long first = asked.first();
        long last = asked.last();
        double seconds = (last - first) / 1e6;
        double allowed = limit.burst() + (last - first) * 1e3 / limit.interval().toNanos();
        double grantedPct = tally.granted() * 100.0 / allowed;
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ops", (double) tally.asks());
        out.put("seconds", seconds);
        out.put("opsPerSec", tally.asks() / seconds);
        out.put("granted", (double) tally.granted());
        out.put("allowed", allowed);
        out.put("grantedPct", grantedPct);
        out.put("errorPct", grantedPct - 100);
        out.put("errorAbsPct", Math.abs(grantedPct - 100));
        out.putAll(askers.figures());
        return out;
    }

    @Override
    public void close() {
        askers.close();
    }
}
