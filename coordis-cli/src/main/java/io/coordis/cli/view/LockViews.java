package io.coordis.cli.view;

import io.coordis.inspect.LockState;
import io.coordis.inspect.StateDocuments;
import io.coordis.lock.AuditEntry;
import io.coordis.lock.LockHolder;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.coordis.cli.view.Cells.lower;
import static io.coordis.cli.view.Cells.number;
import static io.coordis.cli.view.Cells.pid;
import static io.coordis.cli.view.Cells.shorten;
import static io.coordis.cli.view.Cells.time;
import static io.coordis.cli.view.Cells.token;

/**
 * How {@code ls} and {@code inspect} show a lock as text: its table row and the full text of {@code inspect lock}
 * (its JSON document is {@link StateDocuments}'s). Thread-safe: it keeps no state.
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

    /** The text of {@code inspect lock}; {@code redacted}: without the tokens, as the dashboard shows it. */
    static List<String> text(LockState l, boolean redacted) {
        List<String> lines = new ArrayList<>();
        Table t = new Table("lock", l.name());
        t.row("mode", l.mode() == LockState.Mode.REDLOCK
                ? "redlock, " + l.agreeing() + " of " + l.nodes() + " nodes agree" : lower(l.mode()).replace('-', ' '));
        t.row("held", l.held() ? "yes" : "no");
        if (l.heldByReaders()) {
            t.row("readers", Integer.toString(l.readers().size()));
            for (LockHolder r : l.readers()) {
                t.row("  reader", r.holderId().orElse("unknown") + " (fence " + number(r.fencingToken()) + ", ttl left "
                        + time(r.ttl()) + ", token " + shorten(token(r.token(), redacted)) + ")");
            }
            t.row("ttl left", ttl(l));
        } else if (l.held()) {
            t.row("holder", l.holderId().map(id -> id + " (host " + l.holderHost().orElse("?") + ", pid "
                    + pid(l.holderPid()) + ")").orElse("unknown (taken by a client that records no holder)"));
            t.row("token", l.token().map(v -> token(v, redacted)).orElse("-"));
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
            nodes.row("  " + n.node(), state, shorten(n.token().map(v -> token(v, redacted)).orElse("-")),
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
