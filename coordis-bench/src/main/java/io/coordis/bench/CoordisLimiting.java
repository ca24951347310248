package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Coordis's rate limiter as a {@link Limiting}: one {@link RateLimiter} per name, all with the same limit, from
 * one client with default options. Thread-safe.
 */
final class CoordisLimiting implements Limiting {
    private final Coordis coordis;
    private final RateLimit limit;
    private final Map<String, RateLimiter> limiters = new ConcurrentHashMap<>();

    CoordisLimiting(String uri, RateLimit limit) {
        this.coordis = Coordis.connect(uri);
        this.limit = limit;
    }

    @Override
    public boolean tryAcquire(String name) {
        return limiters.computeIfAbsent(name, n -> coordis.rateLimiter(n, limit)).tryAcquire().granted();
    }

    @Override
    public void close() {
        coordis.close();
    }
}
