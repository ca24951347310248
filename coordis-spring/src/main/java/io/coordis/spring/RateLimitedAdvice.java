package io.coordis.spring;

import io.coordis.ratelimit.Decision;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Runs {@link RateLimited} methods with a permit of their limiter. Limiters are kept per (name, key, limit), so a
 * hot method makes no object per call; past {@link #MAX_KEPT} of them (keys or SpEL names without bound) the cache
 * starts over, which costs nothing but allocation: a limiter's state is in Redis.
 */
final class RateLimitedAdvice implements AnnotationAdvisor.Advice<RateLimitedAdvice.Settings> {
    private static final Logger log = LoggerFactory.getLogger(RateLimitedAdvice.class);
    private static final String ANNOTATION = "@RateLimited";
    /** "As long as it takes": far beyond any wait, far below the overflow of a nanosecond deadline. */
    private static final Duration UNBOUNDED = Duration.ofDays(3650);
    static final int MAX_KEPT = 10_000;

    private final Map<Id, RateLimiter> limiters = new ConcurrentHashMap<>();
    /** The literal limiter names seen, with their limit and the method that gave it first. */
    private final Map<String, Settings> declared = new HashMap<>();

    /** A limiter of the cache: the family's name, the member's key ({@code null} for none), the limit. */
    private record Id(String name, String key, RateLimit limit) {
    }

    @Override
    public Object invoke(MethodInvocation invocation, Method method, Settings s, Attributes attributes) throws Throwable {
        RateLimiter limiter = limiter(s, invocation.getArguments(), attributes);
        Decision decision;
        if (s.wait.isZero()) {
            decision = limiter.tryAcquire();
        } else if (limiter.acquire(s.wait)) {
            decision = Decision.grant();
        } else {
            decision = limiter.tryAcquire(); // to learn when a permit is due; granted if one came due meanwhile
        }
        if (decision.granted()) {
            return invocation.proceed();
        }
        if (s.skip) {
            log.debug("rate limiter '{}' granted no permit: skipped {}", limiter.name(), Attributes.describe(method));
            return Attributes.skipped(method);
        }
        throw new RateLimitedException(limiter.name(), limiter.limit(), decision.retryAfter(),
                s.wait == UNBOUNDED ? Duration.ZERO : s.wait, Attributes.describe(method));
    }

    /** The limiter of this call: the family's, or its member's for the call's key; kept for the next call. */
    RateLimiter limiter(Settings s, Object[] args, Attributes attributes) {
        String name = s.name.evaluate(args, attributes);
        String key = s.key == null ? null : s.key.evaluate(args, attributes);
        Id id = new Id(name, key, s.limit);
        RateLimiter kept = limiters.get(id);
        if (kept != null) {
            return kept;
        }
        if (limiters.size() >= MAX_KEPT) {
            limiters.clear();
        }
        return limiters.computeIfAbsent(id, i -> {
            RateLimiter family = attributes.coordis().rateLimiter(name, s.limit);
            return key == null ? family : family.forKey(key);
        });
    }

    @Override
    public Optional<Settings> settings(Method method, Attributes attributes) {
        RateLimited limited = AnnotatedElementUtils.findMergedAnnotation(method, RateLimited.class);
        if (limited == null) {
            return Optional.empty();
        }
        Settings s = new Settings(limited, method, attributes);
        if (s.name.isLiteral()) {
            declare(s.name.evaluate(new Object[0], attributes), s);
        }
        return Optional.of(s);
    }

    /** Refuses a second method that gives one limiter another limit: the limiter would apply both in turn. */
    private synchronized void declare(String name, Settings s) {
        Settings first = declared.putIfAbsent(name, s);
        if (first != null && !first.limit.equals(s.limit)) {
            throw new IllegalStateException(ANNOTATION + " on " + Attributes.describe(s.method) + " names rate limiter '"
                    + name + "' with limit " + s.limit + ", but " + Attributes.describe(first.method) + " names it with "
                    + first.limit + "; give both the same limit and burst (or name the limiters apart)");
        }
    }

    /** A method's annotation, read once: an invalid one fails when the bean is proxied, at start-up. */
    static final class Settings {
        final Method method;
        final ArgumentText name;
        /** The key expression; {@code null} for one limiter for every call. */
        final ArgumentText key;
        final RateLimit limit;
        final Duration wait;
        /** Whether a denied call returns without running ({@link WhenBusy#SKIP}) rather than throwing. */
        final boolean skip;

        Settings(RateLimited annotation, Method method, Attributes attributes) {
            this.method = method;
            String at = ANNOTATION + " on " + Attributes.describe(method);
            String name = attributes.text(annotation.name(), ANNOTATION, "name", method);
            this.name = ArgumentText.template(new ArgumentText.Site(ANNOTATION, method, "name", annotation.name()),
                    name, "the limiter's name", "\"search:#{#tenant}\" or \"search:#{#p0}\"");
            String key = attributes.resolve(annotation.key()).strip();
            this.key = key.isEmpty() ? null : ArgumentText.expression(
                    new ArgumentText.Site(ANNOTATION, method, "key", annotation.key()), key, "the limiter's key",
                    "\"#userId\" or \"#p0\"");
            this.limit = limit(annotation, at, attributes);
            WhenBusy stated = annotation.whenLimited();
            this.skip = stated == WhenBusy.SKIP;
            Duration w = attributes.duration(annotation.maxWait(), ANNOTATION, "maxWait", method);
            this.wait = w != null ? w : stated == WhenBusy.WAIT ? UNBOUNDED : Duration.ZERO;
            if (skip) {
                Attributes.checkSkippable(ANNOTATION, method);
            }
        }

        private static RateLimit limit(RateLimited annotation, String at, Attributes attributes) {
            String text = attributes.resolve(annotation.limit()).strip();
            if (text.isEmpty()) {
                throw new IllegalStateException(at + " has an empty limit (\"" + annotation.limit()
                        + "\"); write one like limit = \"10/1s\" (permits per period)");
            }
            RateLimit limit;
            try {
                limit = RateLimit.parse(text);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(at + " has limit = \"" + annotation.limit() + "\", which is not a "
                        + "rate: " + e.getMessage() + "; write it like \"10/1s\", \"100/1m\" or \"5/250ms\"", e);
            }
            int burst = annotation.burst();
            if (burst < 0) {
                throw new IllegalStateException(at + " has burst = " + burst + "; write a burst of at least 1 (the "
                        + "most permits granted at once), or leave it out for the permit count (" + limit.permits()
                        + ")");
            }
            try {
                return burst == 0 ? limit : limit.withBurst(burst);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException(at + ": " + e.getMessage() + "; write a smaller burst", e);
            }
        }
    }
}
