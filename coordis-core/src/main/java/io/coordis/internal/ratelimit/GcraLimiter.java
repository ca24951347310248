package io.coordis.internal.ratelimit;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Failures;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.ratelimit.Decision;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * A rate limiter by GCRA on one node: every decision is one {@code acquire.lua} call that reads Redis's clock,
 * so neither clients' clocks nor their number matter, and nothing is read first and compared after. A wait is the
 * same call with a reserve: permits due within it are granted at their due time, and the caller sleeps until then
 * (on the client's timer in the non-blocking form). A wait keeps the rule of {@link Outages}: a transient failure is
 * tried again, with what is left of the wait as the reserve, until the wait is spent. A try whose reply was lost may
 * have been granted all the same: its permits are spent, and the next try asks anew (fewer permits used, never more
 * granted than the limit). Failures name the limiter. Thread-safe.
 */
final class GcraLimiter implements RateLimiter {
    static final LuaScript ACQUIRE = LuaScript.load(GcraLimiter.class, "acquire.lua");

    private final RateLimiters factory;
    private final Node node;
    private final Timer timer;
    private final Telemetry telemetry;
    /** The name telemetry is told: the family's, so that members' keys do not become meter tags. */
    private final String family;
    private final String name;
    private final RateLimit limit;
    private final List<String> keys;

    GcraLimiter(RateLimiters factory, String family, String name, RateLimit limit) {
        this.factory = factory;
        this.node = factory.node();
        this.timer = factory.timer();
        this.telemetry = factory.telemetry();
        this.family = family;
        this.name = name;
        this.limit = limit;
        this.keys = List.of(factory.key(name));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RateLimit limit() {
        return limit;
    }

    @Override
    public Decision tryAcquire() {
        return tryAcquire(1);
    }

    @Override
    public Decision tryAcquire(int permits) {
        limit.check(permits);
        try {
            return node.awaitUninterruptibly(decide(permits, 0), node.commandTimeout()).decision();
        } catch (CoordisException e) {
            throw named(e);
        }
    }

    @Override
    public boolean acquire(Duration wait) throws InterruptedException {
        return acquire(1, wait);
    }

    @Override
    public boolean acquire(int permits, Duration wait) throws InterruptedException {
        limit.check(permits);
        checkWait(wait);
        Sent sent;
        try {
            sent = Outages.retrying(timer.ticker(), wait, left -> {
                long at = timer.now();
                return new Sent(node.await(decide(permits, reserveMicros(left)), node.commandTimeout()), at);
            });
        } catch (CoordisException e) {
            throw named(e);
        }
        if (!sent.reply().granted()) {
            return false;
        }
        long left = sent.dueAt() - timer.now();
        if (left > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
        return true;
    }

    @Override
    public CompletableFuture<Decision> tryAcquireAsync(int permits) {
        limit.check(permits);
        return timer.relay(decide(permits, 0), Reply::decision, this::failure, r -> { });
    }

    @Override
    public CompletableFuture<Boolean> acquireAsync(int permits, Duration wait) {
        limit.check(permits);
        checkWait(wait);
        CompletableFuture<Sent> decided = Outages.retryingAsync(timer, wait, left -> {
            long at = timer.now();
            return decide(permits, reserveMicros(left)).thenApply(reply -> new Sent(reply, at));
        });
        CompletableFuture<Boolean> due = decided.thenCompose(sent -> {
            long left = sent.dueAt() - timer.now();
            if (!sent.reply().granted() || left <= 0) {
                return CompletableFuture.completedFuture(sent.reply().granted());
            }
            CompletableFuture<Boolean> sleep = new CompletableFuture<>();
            timer.after(left, () -> sleep.complete(true));
            return sleep;
        });
        due.whenComplete((v, f) -> {
            if (due.isCancelled()) {
                decided.cancel(false); // no further tries
            }
        });
        return timer.relay(due, b -> b, this::failure, b -> { });
    }

    @Override
    public RateLimiter forKey(String key) {
        Objects.requireNonNull(key, "rate limiter key must not be null");
        if (key.isEmpty()) {
            throw new IllegalArgumentException("rate limiter key must not be empty: name the member limited, e.g. "
                    + "a user id");
        }
        return factory.member(family, name + ":" + key, limit);
    }

    @Override
    public String toString() {
        return "rate limiter '" + name + "' (" + limit + ")";
    }

    /** Sends one decision and reports it; the reply is parsed, failures are the node's raw ones. */
    private CompletableFuture<Reply> decide(int permits, long reserveMicros) {
        return node.eval(ACQUIRE, keys, RateLayout.args(limit, permits, reserveMicros)).thenApply(raw -> {
            Reply reply = Reply.of(raw);
            telemetry.rateDecided(family, reply.granted(), permits);
            return reply;
        });
    }

    private static void checkWait(Duration wait) {
        Durations.notNegative(Objects.requireNonNull(wait, "wait must not be null"), "wait");
    }

    private static long reserveMicros(Duration left) {
        return Durations.saturatedNanos(left) / 1_000;
    }

    /** A failure of the node as the Coordis exception naming the node and this limiter. */
    private Throwable failure(Throwable f) {
        Throwable cause = f instanceof CompletionException && f.getCause() != null ? f.getCause() : f;
        return named(cause instanceof CoordisException ce ? ce : node.translate(cause));
    }

    /** {@code e} naming this limiter: {@code rate limiter 'api': Redis at ... is unavailable}. */
    private CoordisException named(CoordisException e) {
        return Failures.about(Failures.object("rate limiter", name), e);
    }

    /** A try's reply and when it was sent: permits granted are due {@code dueMicros} after that. */
    private record Sent(Reply reply, long sentNanos) {
        long dueAt() {
            return sentNanos + TimeUnit.MICROSECONDS.toNanos(reply.dueMicros());
        }
    }

    /** The script's answer. */
    private record Reply(boolean granted, long dueMicros) {
        static Reply of(Object raw) {
            List<?> r = (List<?>) raw;
            return new Reply(((Number) r.get(0)).longValue() == 1, ((Number) r.get(1)).longValue());
        }

        Decision decision() {
            return granted ? Decision.grant() : Decision.denial(Duration.of(dueMicros, ChronoUnit.MICROS));
        }
    }
}
