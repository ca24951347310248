package io.coordis.cli.view;

import io.coordis.inspect.LockState;
import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static io.coordis.cli.view.Cells.lower;
import static io.coordis.cli.view.Cells.number;
import static io.coordis.cli.view.Cells.pid;
import static io.coordis.cli.view.Cells.shorten;
import static io.coordis.cli.view.Cells.time;

/**
 * How {@code ls} and {@code inspect} show a lock: its table row, its JSON fields (with each node's part, which the
 * dashboard shows too) and the full text of {@code inspect lock}. The conventions are those of {@link StateViews}.
 * Thread-safe: it keeps no state.
 */
public final class LockViews {
    static final String[] LOCK_COLUMNS = {"NAME", "MODE", "HOLDER", "HOST", "PID", "HELD FOR", "TTL", "FENCE", "FLAGS"};

    private LockViews() {
    }

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
        m.put("flags", l.flags().stream().sorted().map(Cells::lower).toList());
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
    public static List<Map<String, Object>> nodes(LockState l) {
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
        return l.flags().isEmpty() ? "-" : String.join(",", l.flags().stream().sorted().map(Cells::lower).toList());
    }
}
