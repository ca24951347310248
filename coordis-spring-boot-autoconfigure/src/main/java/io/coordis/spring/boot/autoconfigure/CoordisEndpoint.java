package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.time.Instant;

/**
 * {@code /actuator/coordis}: the locks, elections, queues and signals on the client's Redis, as
 * {@code coordis ls} lists them, read-only. {@code ?match=GLOB} keeps the names matching a Redis glob
 * (after the client's key prefix); default {@code *}. Objects are found with SCAN, which walks the whole
 * keyspace: cheap on a Redis kept for coordination, slow on a big data Redis.
 */
@Endpoint(id = "coordis", defaultAccess = Access.READ_ONLY)
public final class CoordisEndpoint {
    private final Coordis coordis;

    /**
     * An endpoint that reads through {@code coordis}'s inspector.
     *
     * @param coordis the client whose Redis is shown
     */
    public CoordisEndpoint(Coordis coordis) {
        this.coordis = coordis;
    }

    /**
     * The view of the objects whose names match {@code match} ({@code *} when absent).
     *
     * @param match a Redis glob over the names, after the client's key prefix; null or empty for {@code *}
     * @return the locks, elections, queues and signals found
     */
    @ReadOperation
    public CoordisView view(@Nullable String match) {
        String glob = coordis.keyPrefix() + (match == null || match.isEmpty() ? "*" : match);
        try {
            Glob.of(glob);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException("match: " + e.getMessage(), "match is not a Redis glob");
        }
        Inspector inspector = coordis.inspector();
        try {
            return new CoordisView(glob, Instant.now().toString(),
                    inspector.locks(glob).stream().map(CoordisView.Lock::of).toList(),
                    inspector.elections(glob).stream().map(CoordisView.Election::of).toList(),
                    inspector.queues(glob).stream().map(CoordisView.Queue::of).toList(),
                    inspector.signals(glob).stream().map(CoordisView.Signal::of).toList());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading Redis", e);
        }
    }
}
