package io.coordis.ratelimit;

import io.coordis.Coordis;

import java.time.Duration;

/** The README's rate limiter example, compiled and run by {@code RateLimiterIT}. */
public final class RateLimiterExample {

    /** What the example answers a caller. */
    public interface Reply {
        void tooManyRequests(Duration retryAfter);

        void search(String query);
    }

    private RateLimiterExample() {
    }

    public static void handle(Coordis coordis, String user, String query, Reply reply) throws InterruptedException {
        RateLimiter searches = coordis.rateLimiter("api:search", RateLimit.parse("10/1s").withBurst(20));
        Decision decision = searches.forKey(user).tryAcquire();    // one script on Redis's clock
        if (!decision.granted()) {
            reply.tooManyRequests(decision.retryAfter());          // when a permit is due
            return;
        }
        reply.search(query);

        RateLimiter exports = coordis.rateLimiter("api:export", RateLimit.of(100, Duration.ofMinutes(1)));
        if (exports.acquire(5, Duration.ofSeconds(2))) {            // reserved at its due time, then slept
            reply.search("export " + query);                         // until then; false at once when not
        }                                                          // due within 2 s
    }
}
