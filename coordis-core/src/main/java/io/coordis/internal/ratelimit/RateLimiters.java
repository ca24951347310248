package io.coordis.internal.ratelimit;

import io.coordis.Telemetry;
import io.coordis.internal.Keys;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Namespace;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;

import java.util.Objects;

/**
 * Creates rate limiters on one Redis node, their keys in one client's namespace. Built by {@code Coordis}.
 * Thread-safe.
 */
public final class RateLimiters {
    private final Node node;
    private final Namespace namespace;
    private final Timer timer;
    private final Telemetry telemetry;

    /**
     * Limiters on {@code node} whose keys are in {@code namespace}, waiting on {@code timer}, telling
     * {@code telemetry} every decision.
     *
     * @param node      the node every limiter decides on
     * @param namespace the client's key prefix
     * @param timer     the client's timer, for waits and for completing futures
     * @param telemetry where decisions are reported
     */
    public RateLimiters(Node node, Namespace namespace, Timer timer, Telemetry telemetry) {
        this.node = Objects.requireNonNull(node, "node");
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.telemetry = Objects.requireNonNull(telemetry, "telemetry");
    }

    /**
     * A limiter on {@code name} applying {@code limit}; its key is {@link #key} of the name.
     *
     * @param name  the limiter's name
     * @param limit the rate it applies
     * @return the limiter
     * @throws IllegalArgumentException when the name is blank, too long or another object's key
     */
    public RateLimiter limiter(String name, RateLimit limit) {
        Keys.requireName("rate limiter name", name, "name what is limited, e.g. \"api:search\"");
        return new GcraLimiter(this, name, name, Objects.requireNonNull(limit, "rate limit must not be null"));
    }

    /** The limiter {@code member} of the family {@code family} (its name for telemetry), already checked. */
    RateLimiter member(String family, String member, RateLimit limit) {
        Keys.requireName("rate limiter name", member, null);
        return new GcraLimiter(this, family, member, limit);
    }

    /**
     * The Redis key of the limiter {@code name}: {@code {name}:rate} after the key prefix (a name with a hash tag
     * keeps it: {@code a{b}:rate}).
     *
     * @param name the limiter's name
     * @return the key
     */
    public String key(String name) {
        return RateLayout.key(namespace.key(name));
    }

    Node node() {
        return node;
    }

    Timer timer() {
        return timer;
    }

    Telemetry telemetry() {
        return telemetry;
    }
}
