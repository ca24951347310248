package io.coordis.cli;

import io.coordis.inspect.ElectionState;
import io.coordis.inspect.LockState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.SemaphoreState;
import io.coordis.inspect.SignalState;
import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * How {@code ls} and {@code inspect} show each kind of object: one table row, the JSON fields, and for
 * {@code inspect} the full text. The JSON field names are part of the command's interface (scripts parse
 * them): durations are in milliseconds ({@code ...Ms}), times in milliseconds since the epoch, unknown
 * values {@code null}.
 */
final class StateViews {
    static final String[] LOCK_COLUMNS = {"NAME", "MODE", "HOLDER", "HOST", "PID", "HELD FOR", "TTL", "FENCE", "FLAGS"};
    static final String[] ELECTION_COLUMNS = {"NAME", "LEADER", "TERM", "LEADER SINCE", "TTL"};
    static final String[] QUEUE_COLUMNS = {"NAME", "DEPTH", "IN-FLIGHT", "OLDEST READY", "OLDEST IN-FLIGHT", "OVERDUE",
            "DEAD", "CONSUMERS"};
    static final String[] SIGNAL_COLUMNS = {"CHANNEL", "SUBSCRIBERS", "LAST EVENT"};
    static final String[] SEMAPHORE_COLUMNS = {"NAME", "PERMITS", "HELD", "HOLDERS", "WAITING", "FENCE", "NEXT EXPIRY"};
    private static final int SHOWN_CHARS = 40;

    private StateViews() {
    }

    // ---- locks

    static String[] row(LockState l) {
        return new String[] {l.name(), mode(l), l.heldByReaders() ? l.readers().size() + " readers"
                : l.holderId().orElse(l.held() ? "unknown" : "-"),
                l.holderHost().orElse("-"), pid(l.holderPid()), time(l.heldFor()), ttl(l),
                number(l.fencingToken()), flags(l)};
    }

    static Map<String, Object> json(LockState l, boolean detail) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", l.name());
        m.put("mode", lower(l.mode()));
        m.put("nodes", l.nodes());
        m.put("agreeing", l.agreeing());
        m.put("held", l.held());
        Map<String, Object> holder = new LinkedHashMap<>();
        holder.put("id", l.holderId());
        holder.put("host", l.holderHost());
        holder.put("pid", l.holderPid());
        m.put("holder", l.held() ? holder : null);
        m.put("token", l.token());
        m.put("since", l.since());
        m.put("heldForMs", l.heldFor());
        m.put("ttlMs", l.ttl());
        m.put("leaseTtlMs", l.leaseTtl());
        m.put("fence", l.fencingToken());
        m.put("fenceCounter", l.fenceCounter());
        m.put("waiters", l.waiters());
        List<Map<String, Object>> readers = new ArrayList<>();
        for (LockHolder r : l.readers()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("token", r.token());
            o.put("holder", r.holderId());
            o.put("fence", r.fencingToken());
            o.put("ttlMs", r.ttl());
            o.put("since", r.since());
            readers.add(o);
        }
        m.put("readers", readers);
        m.put("writerWaitingMs", l.writerWaiting());
        m.put("flags", l.flags().stream().sorted().map(StateViews::lower).toList());
        if (detail) {
            m.put("perNode", nodes(l));
            List<Map<String, Object>> audit = new ArrayList<>();
            for (AuditEntry a : l.audit()) {
                Map<String, Object> o = new LinkedHashMap<>();
                o.put("at", a.at());
                o.put("by", a.by());
                o.put("action", a.action());
                o.put("reason", a.reason());
                o.put("holder", a.holder());
                o.put("fence", a.fence());
                o.put("raw", a.raw());
                audit.add(o);
            }
            m.put("audit", audit);
        }
        return m;
    }

    /** What each node holds of the lock: the {@code perNode} field of {@code inspect lock -o json}. */
    static List<Map<String, Object>> nodes(LockState l) {
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (LockState.NodeState n : l.perNode()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("node", n.node());
            o.put("token", n.token());
            o.put("ttlMs", n.ttl());
            o.put("holder", n.holderId());
            o.put("fence", n.fencingToken());
            o.put("fenceCounter", n.fenceCounter());
            o.put("agrees", n.agrees());
            o.put("error", n.error());
            nodes.add(o);
        }
        return nodes;
    }

    static List<String> text(LockState l) {
        List<String> lines = new ArrayList<>();
        Table t = new Table("lock", l.name());
        t.row("mode", l.mode() == LockState.Mode.REDLOCK
                ? "redlock, " + l.agreeing() + " of " + l.nodes() + " nodes agree" : lower(l.mode()).replace('-', ' '));
        t.row("held", l.held() ? "yes" : "no");
        if (l.heldByReaders()) {
            t.row("readers", Integer.toString(l.readers().size()));
            for (LockHolder r : l.readers()) {
                t.row("  reader", r.holderId().orElse("unknown") + " (fence " + number(r.fencingToken()) + ", ttl left "
                        + time(r.ttl()) + ", token " + shorten(r.token()) + ")");
            }
            t.row("ttl left", ttl(l));
        } else if (l.held()) {
            t.row("holder", l.holderId().map(id -> id + " (host " + l.holderHost().orElse("?") + ", pid "
                    + pid(l.holderPid()) + ")").orElse("unknown (taken by a client that records no holder)"));
            t.row("token", l.token().orElse("-"));
            t.row("since", l.since().map(s -> s.truncatedTo(ChronoUnit.MILLIS) + " (held for " + time(l.heldFor()) + ")")
                    .orElse("unknown"));
            t.row("ttl left", ttl(l) + l.leaseTtl().map(d -> " of " + time(Optional.of(d))).orElse(""));
            t.row("fence", number(l.fencingToken()));
        }
        t.row("fence counter", number(l.fenceCounter()));
        t.row("waiters", Long.toString(l.waiters()));
        l.writerWaiting().ifPresent(w -> t.row("writer waiting", "yes (new readers wait; mark lasts " + time(Optional.of(w))
                + " more)"));
        t.row("flags", flags(l));
        lines.addAll(t.lines());
        lines.add("nodes:");
        Table nodes = new Table("  NODE", "STATE", "TOKEN", "TTL", "HOLDER", "FENCE", "COUNTER");
        for (LockState.NodeState n : l.perNode()) {
            if (n.error().isPresent()) {
                nodes.row("  " + n.node(), "error: " + n.error().get().replaceAll("\\s+", " "), "", "", "", "", "");
                continue;
            }
            String state = n.token().isEmpty() ? "free" : n.agrees() ? "agrees" : "differs";
            nodes.row("  " + n.node(), state, shorten(n.token().orElse("-")),
                    n.token().isEmpty() ? "-" : n.ttl().map(d -> time(Optional.of(d))).orElse("none"),
                    n.holderId().orElse("-"), number(n.fencingToken()), number(n.fenceCounter()));
        }
        lines.addAll(nodes.lines());
        lines.add("audit (newest first):" + (l.audit().isEmpty() ? " none" : ""));
        for (AuditEntry a : l.audit()) {
            if (a.action().isEmpty()) {
                lines.add("  " + a.raw());
                continue;
            }
            lines.add("  " + a.at().map(Instant::toString).orElse("?") + " " + a.action().get() + " by "
                    + a.by().orElse("?") + ", holder " + a.holder().orElse("?") + ", fence now "
                    + number(a.fence()) + a.reason().filter(r -> !r.isEmpty()).map(r -> ", reason: " + r).orElse(""));
        }
        return lines;
    }

    // ---- elections

    static String[] row(ElectionState e) {
        return new String[] {e.name(), e.leader().orElse("-"), number(e.term()),
                e.since().map(s -> s.truncatedTo(ChronoUnit.SECONDS) + " (" + time(e.leaderFor()) + " ago)").orElse("-"),
                e.leader().isEmpty() ? "-" : e.ttl().map(d -> time(Optional.of(d))).orElse("none")};
    }

    static Map<String, Object> json(ElectionState e) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", e.name());
        m.put("leader", e.leader());
        m.put("term", e.term());
        m.put("since", e.since());
        m.put("leaderForMs", e.leaderFor());
        m.put("ttlMs", e.ttl());
        m.put("termCounter", e.termCounter());
        m.put("observers", e.observers());
        return m;
    }

    static List<String> text(ElectionState e) {
        Table t = new Table("election", e.name());
        t.row("leader", e.leader().orElse("nobody"));
        t.row("term", number(e.term()));
        t.row("leader since", e.since().map(s -> s.truncatedTo(ChronoUnit.MILLIS) + " (" + time(e.leaderFor()) + " ago)")
                .orElse("-"));
        t.row("ttl left", e.leader().isEmpty() ? "-" : e.ttl().map(d -> time(Optional.of(d))).orElse("none"));
        t.row("term counter", number(e.termCounter()));
        t.row("observers", Long.toString(e.observers()));
        return t.lines();
    }

    // ---- queues

    static String[] row(QueueState q) {
        return new String[] {q.name(), Long.toString(q.depth()), Long.toString(q.inFlight()), time(q.oldestReadyAge()),
                time(q.oldestInFlightAge()), Long.toString(q.overdue()), Long.toString(q.deadLetters()), consumers(q)};
    }

    static Map<String, Object> json(QueueState q) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", q.name());
        m.put("depth", q.depth());
        m.put("inFlight", q.inFlight());
        m.put("oldestReadyAgeMs", q.oldestReadyAge());
        m.put("oldestInFlightAgeMs", q.oldestInFlightAge());
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
            o.put("oldestInFlightAgeMs", c.oldestInFlightAge());
            o.put("lastHeartbeat", c.lastHeartbeat());
            o.put("heartbeatAgeMs", c.heartbeatAge());
            consumers.add(o);
        }
        m.put("consumers", consumers);
        return m;
    }

    static List<String> text(QueueState q) {
        List<String> lines = new ArrayList<>();
        Table t = new Table("queue", q.name());
        t.row("depth", Long.toString(q.depth()));
        t.row("oldest ready", time(q.oldestReadyAge()));
        t.row("in flight", Long.toString(q.inFlight()));
        t.row("oldest in flight", time(q.oldestInFlightAge()));
        t.row("overdue", q.overdue() + (q.overdue() > 0 ? " (held by dead consumers; the next sweep puts them back)" : ""));
        t.row("dead letters", Long.toString(q.deadLetters()));
        t.row("delayed", Long.toString(q.delayed()));
        t.row("settled", q.settled() + " (acked or dead-lettered, ever)");
        lines.addAll(t.lines());
        lines.add("consumers:" + (q.consumers().isEmpty() ? " none" : ""));
        if (!q.consumers().isEmpty()) {
            Table c = new Table("  ID", "STATE", "SLOTS", "IN-FLIGHT", "OLDEST IN-FLIGHT", "LAST HEARTBEAT");
            for (QueueState.ConsumerState s : q.consumers()) {
                c.row("  " + s.id(), s.alive() ? "alive" : "dead", Integer.toString(s.slots()),
                        Long.toString(s.inFlight()), time(s.oldestInFlightAge()),
                        time(Optional.of(s.heartbeatAge())) + " ago");
            }
            lines.addAll(c.lines());
        }
        return lines;
    }

    // ---- signals

    static String[] row(SignalState s) {
        return new String[] {s.channel(), Long.toString(s.subscribers()), event(s)};
    }

    static Map<String, Object> json(SignalState s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("channel", s.channel());
        m.put("subscribers", s.subscribers());
        m.put("latched", s.latched());
        m.put("latchedTtlMs", s.latchedTtl());
        return m;
    }

    static List<String> text(SignalState s) {
        Table t = new Table("signal", s.channel());
        t.row("subscribers", Long.toString(s.subscribers()));
        t.row("last event", event(s));
        return t.lines();
    }

    // ---- semaphores

    static String[] row(SemaphoreState s) {
        return new String[] {s.name(), count(s.permits()), Integer.toString(s.held()),
                Integer.toString(s.holders().size()), Integer.toString(s.waiters().size()), number(s.fencingCounter()),
                time(s.holders().stream().map(SemaphoreState.Holder::ttl).min(Duration::compareTo))};
    }

    static Map<String, Object> json(SemaphoreState s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("permits", s.permits().isPresent() ? s.permits().getAsInt() : null);
        m.put("held", s.held());
        m.put("fencingCounter", s.fencingCounter());
        List<Map<String, Object>> holders = new ArrayList<>();
        for (SemaphoreState.Holder h : s.holders()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("token", h.token());
            o.put("permits", h.permits());
            o.put("holder", h.holderId());
            o.put("fence", h.fence());
            o.put("since", h.since());
            o.put("ttlMs", h.ttl());
            holders.add(o);
        }
        m.put("holders", holders);
        List<Map<String, Object>> waiters = new ArrayList<>();
        for (SemaphoreState.Waiter w : s.waiters()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("token", w.token());
            o.put("waitingMs", w.waiting());
            o.put("lapsesInMs", w.lapsesIn());
            waiters.add(o);
        }
        m.put("waiters", waiters);
        return m;
    }

    static List<String> text(SemaphoreState s) {
        List<String> lines = new ArrayList<>();
        Table t = new Table("semaphore", s.name());
        t.row("permits", count(s.permits()) + (s.permits().isEmpty() ? " (none stored yet)" : ""));
        t.row("held", Integer.toString(s.held()) + (s.permits().isPresent() && s.held() > s.permits().getAsInt()
                ? " (over the count, which was lowered: new permits wait)" : ""));
        t.row("fence counter", number(s.fencingCounter()));
        lines.addAll(t.lines());
        lines.add("holders:" + (s.holders().isEmpty() ? " none" : ""));
        if (!s.holders().isEmpty()) {
            Table h = new Table("  TOKEN", "PERMITS", "HOLDER", "FENCE", "HELD FOR", "TTL");
            Instant now = Instant.now();
            for (SemaphoreState.Holder x : s.holders()) {
                h.row("  " + x.token(), Integer.toString(x.permits()), x.holderId().orElse("unknown"), number(x.fence()),
                        time(x.since().map(since -> Duration.between(since, now)).filter(d -> !d.isNegative())),
                        time(Optional.of(x.ttl())));
            }
            lines.addAll(h.lines());
        }
        lines.add("waiters:" + (s.waiters().isEmpty() ? " none" : ""));
        if (!s.waiters().isEmpty()) {
            Table w = new Table("  TOKEN", "WAITING FOR", "PLACE LAPSES IN");
            for (SemaphoreState.Waiter x : s.waiters()) {
                w.row("  " + x.token(), time(Optional.of(x.waiting())), time(Optional.of(x.lapsesIn())));
            }
            lines.addAll(w.lines());
        }
        return lines;
    }

    // ---- cells

    private static String count(OptionalInt n) {
        return n.isPresent() ? Integer.toString(n.getAsInt()) : "-";
    }

    private static String mode(LockState l) {
        return switch (l.mode()) {
            case SINGLE_NODE -> "single";
            case LEGACY -> "legacy";
            case REDLOCK -> "redlock " + l.agreeing() + "/" + l.nodes();
        };
    }

    private static String ttl(LockState l) {
        return l.ttl().map(d -> time(Optional.of(d))).orElse(l.held() ? "none" : "-");
    }

    private static String flags(LockState l) {
        return l.flags().isEmpty() ? "-" : String.join(",", l.flags().stream().sorted().map(StateViews::lower).toList());
    }

    private static String consumers(QueueState q) {
        if (q.consumers().isEmpty()) {
            return "-";
        }
        List<String> parts = new ArrayList<>();
        for (QueueState.ConsumerState c : q.consumers()) {
            parts.add(c.id() + (c.alive() ? "" : " dead") + " beat " + time(Optional.of(c.heartbeatAge())) + " ago");
        }
        return String.join(", ", parts);
    }

    private static String event(SignalState s) {
        return s.latched().map(d -> shorten(d) + s.latchedTtl().map(t -> " (kept " + time(Optional.of(t)) + " more)")
                .orElse("")).orElse("-");
    }

    private static String shorten(String s) {
        String flat = s.replaceAll("\\p{Cntrl}", "?");
        return flat.length() <= SHOWN_CHARS ? flat : flat.substring(0, SHOWN_CHARS - 1) + "…";
    }

    private static String pid(OptionalLong pid) {
        return pid.isPresent() ? Long.toString(pid.getAsLong()) : "-";
    }

    private static String number(OptionalLong n) {
        return n.isPresent() ? Long.toString(n.getAsLong()) : "-";
    }

    static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** 850ms, 4.2s, 3m05s, 2h07m, 3d04h; "-" when absent. */
    static String time(Optional<Duration> d) {
        if (d.isEmpty()) {
            return "-";
        }
        long ms = d.get().toMillis();
        if (ms < 1000) {
            return ms + "ms";
        }
        if (ms < 60_000) {
            return String.format(Locale.ROOT, "%.1fs", ms / 1000.0);
        }
        long s = ms / 1000;
        if (s < 3600) {
            return String.format(Locale.ROOT, "%dm%02ds", s / 60, s % 60);
        }
        if (s < 86_400) {
            return String.format(Locale.ROOT, "%dh%02dm", s / 3600, (s % 3600) / 60);
        }
        return String.format(Locale.ROOT, "%dd%02dh", s / 86_400, (s % 86_400) / 3600);
    }
}
