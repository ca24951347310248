package io.coordis.inspect;

import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The one JSON shape of each {@link ObjectState}: the document {@code coordis ls -o json} and
 * {@code coordis inspect -o json} print, and, redacted, what the dashboard and the actuator serve. A document is
 * plain values, ready for any JSON writer: ordered {@code Map<String, Object>}s, {@code List}s, {@code String}s,
 * {@code Long}s, {@code Integer}s, {@code Boolean}s and {@code null}. Durations are milliseconds in fields named
 * {@code ...Ms}, times are milliseconds since the epoch, enum values lower case with {@code -}, and an absent value
 * is {@code null} (the field is still there). Field names are part of the command line's interface: scripts
 * parse them.
 *
 * <p>The {@linkplain #redacted redacted} form leaves out every {@value #TOKEN} field at any depth: the lock's
 * token, each node's, each reader's, each semaphore holder's and waiter's. Whoever knows a token can release or
 * extend what it holds, so documents served over HTTP are redacted. Apart from those fields both forms are the
 * same. Thread-safe: it keeps no state.
 */
public final class StateDocuments {
    /** The name of the fields the redacted form leaves out. */
    public static final String TOKEN = "token";

    private static final Set<String> REDACTED = Set.of(TOKEN);

    private StateDocuments() {
    }

    /**
     * The full document of {@code state}, tokens included: what {@code coordis ls -o json} lists and
     * {@code coordis inspect -o json} prints.
     *
     * @param state an object as read
     * @return a new ordered map of plain values
     */
    public static Map<String, Object> full(ObjectState state) {
        if (state instanceof LockState l) {
            return lock(l);
        }
        if (state instanceof ElectionState e) {
            return election(e);
        }
        if (state instanceof QueueState q) {
            return queue(q);
        }
        if (state instanceof SemaphoreState s) {
            return semaphore(s);
        }
        if (state instanceof RateLimiterState r) {
            return rateLimiter(r);
        }
        if (state instanceof LatchState c) {
            return latch(c);
        }
        return signal((SignalState) state);
    }

    /**
     * The document of {@code state} without its tokens: {@link #full} less every {@value #TOKEN} field.
     *
     * @param state an object as read
     * @return a new ordered map of plain values that holds no token
     */
    public static Map<String, Object> redacted(ObjectState state) {
        return withoutTokens(full(state));
    }

    /**
     * The document of one kind's objects, as {@code coordis ls KIND -o json} prints it: {@code kind} (plural),
     * {@code match}, {@code at} and {@code items}, one document per state.
     *
     * @param kind     the kind listed
     * @param match    the glob the names were matched against
     * @param at       when they were read
     * @param states   the objects found, of {@code kind}
     * @param redacted whether the items are {@linkplain #redacted redacted}
     * @return a new ordered map of plain values
     */
    public static Map<String, Object> listing(ObjectKind kind, String match, Instant at,
                                              List<? extends ObjectState> states, boolean redacted) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("kind", kind.plural());
        doc.put("match", match);
        doc.put("at", at.toEpochMilli());
        doc.put("items", states.stream().map(s -> redacted ? redacted(s) : full(s)).toList());
        return doc;
    }

    private static Map<String, Object> lock(LockState l) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", l.name());
        m.put("mode", lower(l.mode()));
        m.put("nodes", l.nodes());
        m.put("agreeing", l.agreeing());
        m.put("held", l.held());
        Map<String, Object> holder = new LinkedHashMap<>();
        holder.put("id", l.holderId().orElse(null));
        holder.put("host", l.holderHost().orElse(null));
        holder.put("pid", value(l.holderPid()));
        m.put("holder", l.held() ? holder : null);
        m.put(TOKEN, l.token().orElse(null));
        m.put("since", time(l.since()));
        m.put("heldForMs", ms(l.heldFor()));
        m.put("ttlMs", ms(l.ttl()));
        m.put("leaseTtlMs", ms(l.leaseTtl()));
        m.put("fence", value(l.fencingToken()));
        m.put("fenceCounter", value(l.fenceCounter()));
        m.put("waiters", l.waiters());
        List<Map<String, Object>> readers = new ArrayList<>();
        for (LockHolder r : l.readers()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put(TOKEN, r.token());
            o.put("holder", r.holderId().orElse(null));
            o.put("fence", value(r.fencingToken()));
            o.put("ttlMs", ms(r.ttl()));
            o.put("since", time(r.since()));
            readers.add(o);
        }
        m.put("readers", readers);
        m.put("writerWaitingMs", ms(l.writerWaiting()));
        m.put("flags", l.flags().stream().sorted().map(StateDocuments::lower).toList());
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (LockState.NodeState n : l.perNode()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("node", n.node());
            o.put("held", n.token().isPresent());
            o.put(TOKEN, n.token().orElse(null));
            o.put("ttlMs", ms(n.ttl()));
            o.put("holder", n.holderId().orElse(null));
            o.put("fence", value(n.fencingToken()));
            o.put("fenceCounter", value(n.fenceCounter()));
            o.put("agrees", n.agrees());
            o.put("error", n.error().orElse(null));
            nodes.add(o);
        }
        m.put("perNode", nodes);
        List<Map<String, Object>> audit = new ArrayList<>();
        for (AuditEntry a : l.audit()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("at", time(a.at()));
            o.put("by", a.by().orElse(null));
            o.put("action", a.action().orElse(null));
            o.put("reason", a.reason().orElse(null));
            o.put("holder", a.holder().orElse(null));
            o.put("fence", value(a.fence()));
            o.put("raw", a.raw());
            audit.add(o);
        }
        m.put("audit", audit);
        return m;
    }

    private static Map<String, Object> election(ElectionState e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", e.name());
        m.put("leader", e.leader().orElse(null));
        m.put("term", value(e.term()));
        m.put("since", time(e.since()));
        m.put("leaderForMs", ms(e.leaderFor()));
        m.put("ttlMs", ms(e.ttl()));
        m.put("termCounter", value(e.termCounter()));
        m.put("observers", e.observers());
        return m;
    }

    private static Map<String, Object> queue(QueueState q) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", q.name());
        m.put("depth", q.depth());
        m.put("inFlight", q.inFlight());
        m.put("oldestReadyAgeMs", ms(q.oldestReadyAge()));
        m.put("oldestInFlightAgeMs", ms(q.oldestInFlightAge()));
        m.put("overdue", q.overdue());
        m.put("deadLetters", q.deadLetters());
        m.put("delayed", q.delayed());
        m.put("settled", q.settled());
        List<Map<String, Object>> consumers = new ArrayList<>();
        for (QueueState.ConsumerState c : q.consumers()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("id", c.id());
            o.put("alive", c.alive());
            o.put("slots", c.slots());
            o.put("inFlight", c.inFlight());
            o.put("oldestInFlightAgeMs", ms(c.oldestInFlightAge()));
            o.put("lastHeartbeat", c.lastHeartbeat().toEpochMilli());
            o.put("heartbeatAgeMs", c.heartbeatAge().toMillis());
            consumers.add(o);
        }
        m.put("consumers", consumers);
        return m;
    }

    private static Map<String, Object> signal(SignalState s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("channel", s.channel());
        m.put("subscribers", s.subscribers());
        m.put("latched", s.latched().orElse(null));
        m.put("latchedTtlMs", ms(s.latchedTtl()));
        return m;
    }

    private static Map<String, Object> semaphore(SemaphoreState s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("permits", value(s.permits()));
        m.put("held", s.held());
        m.put("fencingCounter", value(s.fencingCounter()));
        List<Map<String, Object>> holders = new ArrayList<>();
        for (SemaphoreState.Holder h : s.holders()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put(TOKEN, h.token());
            o.put("permits", h.permits());
            o.put("holder", h.holderId().orElse(null));
            o.put("fence", value(h.fence()));
            o.put("since", time(h.since()));
            o.put("ttlMs", h.ttl().toMillis());
            holders.add(o);
        }
        m.put("holders", holders);
        List<Map<String, Object>> waiters = new ArrayList<>();
        for (SemaphoreState.Waiter w : s.waiters()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put(TOKEN, w.token());
            o.put("waitingMs", w.waiting().toMillis());
            o.put("lapsesInMs", w.lapsesIn().toMillis());
            waiters.add(o);
        }
        m.put("waiters", waiters);
        return m;
    }

    private static Map<String, Object> rateLimiter(RateLimiterState r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", r.name());
        m.put("idle", r.idle());
        m.put("busyForMs", r.busyFor().toMillis());
        m.put("theoreticalArrival", r.theoreticalArrival().toEpochMilli());
        m.put("ttlMs", ms(r.ttl()));
        return m;
    }

    private static Map<String, Object> latch(LatchState c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", c.name());
        m.put("count", c.count());
        m.put("open", c.open());
        m.put("ttlMs", ms(c.ttl()));
        m.put("waiters", c.waiters());
        return m;
    }

    /** A copy of {@code doc} without the redacted fields, at any depth. */
    private static Map<String, Object> withoutTokens(Map<?, ?> doc) {
        Map<String, Object> out = new LinkedHashMap<>();
        doc.forEach((k, v) -> {
            if (!REDACTED.contains((String) k)) {
                out.put((String) k, withoutTokens(v));
            }
        });
        return out;
    }

    private static Object withoutTokens(Object value) {
        if (value instanceof Map<?, ?> m) {
            return withoutTokens(m);
        }
        if (value instanceof List<?> l) {
            return l.stream().map(StateDocuments::withoutTokens).toList();
        }
        return value;
    }

    private static Long ms(Optional<Duration> d) {
        return d.map(Duration::toMillis).orElse(null);
    }

    private static Long time(Optional<Instant> t) {
        return t.map(Instant::toEpochMilli).orElse(null);
    }

    private static Long value(OptionalLong n) {
        return n.isPresent() ? n.getAsLong() : null;
    }

    private static Integer value(OptionalInt n) {
        return n.isPresent() ? n.getAsInt() : null;
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
