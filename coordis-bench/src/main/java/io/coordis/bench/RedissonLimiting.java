package io.coordis.bench;

import io.coordis.ratelimit.RateLimit;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Redisson's {@link RRateLimiter} as a {@link Limiting}: {@code trySetRate(RateType.OVERALL, permits, period)} once
 * per name (a name's first client sets the rate, as every client would), then {@code tryAcquire()}. Redisson keeps
 * a sliding window: at most {@code permits} grants in any {@code period}, each grant a member of a sorted set scored
 * by the client's clock, so its burst is always the permit count. Thread-safe.
 */
final class RedissonLimiting implements Limiting {
    private final RedissonClient client;
    private final RateLimit limit;
    private final Map<String, RRateLimiter> limiters = new ConcurrentHashMap<>();

    /** @throws IllegalArgumentException when {@code limit}'s burst is not its permit count, which Redisson cannot do */
    RedissonLimiting(String uri, RateLimit limit) {
        if (limit.burst() != limit.permits()) {
            throw new IllegalArgumentException("Redisson's RRateLimiter bursts by its permit count; give " + limit
                    + " without a burst of its own, e.g. " + RateLimit.of(limit.permits(), limit.period()));
        }
        this.client = Redisson.create(RedissonLocking.config(uri, null));
        this.limit = limit;
    }

    private RRateLimiter of(String name) {
        return limiters.computeIfAbsent(name, n -> {
            RRateLimiter limiter = client.getRateLimiter(n);
            limiter.trySetRate(RateType.OVERALL, limit.permits(), limit.period());
            return limiter;
        });
    }

    @Override
    public boolean tryAcquire(String name) {
        return of(name).tryAcquire();
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
