package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.StateDocuments;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

import java.time.Instant;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code /actuator/coordis}: the locks, elections, queues, signals, semaphores, rate limiters and count-down
 * latches on the client's Redis, as {@code coordis ls -o json} lists them, redacted and read-only. The answer holds {@code match} (the glob, after
 * the client's key prefix), {@code at} (when it was read, milliseconds since the epoch) and, under each kind's
 * plural name, the {@link StateDocuments#redacted redacted documents} of its objects: the items of
 * {@code coordis ls KIND -o json} without their tokens (whoever knows a token can release or extend what it
 * holds). Rate limiters ({@code rate-limiters}) and latches ({@code latches}) are there only when there are any,
 * so the answer has the fields it had before those kinds could be shown. {@code ?match=GLOB} keeps the names matching a Redis glob (after the client's key prefix); default
 * {@code *}. Objects are found with SCAN, which walks the whole keyspace: cheap on a Redis kept for coordination,
 * slow on a big data Redis. Thread-safe: it keeps no state of its own.
 */
@Endpoint(id = "coordis", defaultAccess = Access.READ_ONLY)
public final class CoordisEndpoint {
    /** The kinds shown only when there are any: those added after the answer's first shape. */
    private static final Set<ObjectKind> SHOWN_WHEN_ANY = EnumSet.of(ObjectKind.RATE_LIMITER, ObjectKind.LATCH);

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
     * The objects whose names match {@code match} ({@code *} when absent), as plain values that Jackson writes as
     * they are.
     *
     * @param match a Redis glob over the names, after the client's key prefix; null or empty for {@code *}
     * @return {@code match}, {@code at}, then each kind's redacted documents under its plural name (rate limiters and
     *         latches only when there are any)
     */
    @ReadOperation
    public Map<String, Object> view(@Nullable String match) {
        String glob = coordis.keyPrefix() + (match == null || match.isEmpty() ? "*" : match);
        try {
            Glob.of(glob);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException("match: " + e.getMessage(), "match is not a Redis glob");
        }
        Inspector inspector = coordis.inspector();
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("match", glob);
        view.put("at", Instant.now().toEpochMilli());
        try {
            for (ObjectKind kind : ObjectKind.values()) {
                List<Map<String, Object>> items = inspector.list(kind, glob).stream().map(StateDocuments::redacted)
                        .toList();
                if (!items.isEmpty() || !SHOWN_WHEN_ANY.contains(kind)) {
                    view.put(kind.plural(), items);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading Redis", e);
        }
        return view;
    }
}
