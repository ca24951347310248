package io.coordis.internal.inspect;

import io.coordis.WrongTypeException;
import io.coordis.inspect.Glob;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.RateLimiterState;
import io.coordis.internal.ratelimit.RateLayout;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * Rate limiters for the inspector: found as the names whose key ({@code {name}:rate}, {@link RateLayout}) is a
 * string on the first node, read with {@code value-state.lua} ({@link ValueRead}) and compared with the server's
 * clock read in the same step. The limit is not stored, so only how far ahead the limiter runs is shown. Thread-safe.
 */
final class RateLimiterStates implements StateReader<RateLimiterState> {
    private final Keyspace keyspace;

    RateLimiterStates(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.RATE_LIMITER;
    }

    /** The names with a key: an idle limiter's key has expired, and it is not found. */
    @Override
    public SortedSet<String> find(Glob glob) throws InterruptedException {
        TreeSet<String> names = new TreeSet<>();
        for (String key : keyspace.scan(keyspace.first(), "*:rate", "string")) {
            KeyLayout.owner(key, RateLayout::key).filter(glob::matches).ifPresent(names::add);
        }
        return names;
    }

    @Override
    public List<RateLimiterState> readFound(List<String> names) throws InterruptedException {
        return keyspace.readEach(names, "rate limiters", RateLimiterStates::read);
    }

    @Override
    public Optional<RateLimiterState> read(String name) throws InterruptedException {
        return read(keyspace.first(), name);
    }

    /**
     * @return empty when the limiter has no key (idle, or never used)
     * @throws WrongTypeException when its key holds another type, or a string that is no arrival time
     */
    private static Optional<RateLimiterState> read(RedisNode node, String name) throws InterruptedException {
        String key = RateLayout.key(name);
        ValueRead r = ValueRead.read(node, key);
        if (!r.isString()) {
            if (r.type().equals("none")) {
                return Optional.empty();
            }
            throw Keyspace.wrongType(node.address(), key, r.type(), "rate limiter");
        }
        Instant arrival = r.whole().flatMap(RateLayout::theoreticalArrival).orElseThrow(() ->
                new WrongTypeException(node.address(), key, "string", "key '" + key + "' holds a string that is "
                        + "no rate limiter's arrival time (microseconds since the epoch): not a rate limiter", null));
        Instant now = Instant.EPOCH.plus(r.nowMicros(), ChronoUnit.MICROS);
        Duration busyFor = arrival.isAfter(now) ? Duration.between(now, arrival) : Duration.ZERO;
        return Optional.of(new RateLimiterState(name, arrival, busyFor, r.ttl()));
    }
}
