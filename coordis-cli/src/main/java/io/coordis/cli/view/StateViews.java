package io.coordis.cli.view;

import io.coordis.inspect.ElectionState;
import io.coordis.inspect.LatchState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.RateLimiterState;
import io.coordis.inspect.SemaphoreState;
import io.coordis.inspect.SignalState;
import io.coordis.inspect.StateDocuments;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static io.coordis.cli.view.Cells.count;
import static io.coordis.cli.view.Cells.number;
import static io.coordis.cli.view.Cells.shorten;
import static io.coordis.cli.view.Cells.time;
import static io.coordis.cli.view.Cells.token;

/**
 * How {@code ls} and {@code inspect} show elections, queues, signals, semaphores, rate limiters and latches as text
 * ({@link LockViews}: locks): one table row, and for {@code inspect} the full text (their JSON documents are
 * {@link StateDocuments}'s). Thread-safe: it keeps no state.
 */
final class StateViews {
    static final String[] ELECTION_COLUMNS = {"NAME", "LEADER", "TERM", "LEADER SINCE", "TTL"};
    static final String[] QUEUE_COLUMNS = {"NAME", "DEPTH", "IN-FLIGHT", "OLDEST READY", "OLDEST IN-FLIGHT", "OVERDUE",
            "DEAD", "CONSUMERS"};
    static final String[] SIGNAL_COLUMNS = {"CHANNEL", "SUBSCRIBERS", "LAST EVENT"};
    static final String[] SEMAPHORE_COLUMNS = {"NAME", "PERMITS", "HELD", "HOLDERS", "WAITING", "FENCE", "NEXT EXPIRY"};
    static final String[] RATE_LIMITER_COLUMNS = {"NAME", "BUSY FOR", "TTL"};
    static final String[] LATCH_COLUMNS = {"NAME", "COUNT", "STATE", "WAITERS", "TTL"};

    private StateViews() {
    }

    // ---- elections

    static String[] row(ElectionState e) {
        return new String[] {e.name(), e.leader().orElse("-"), number(e.term()),
                e.since().map(s -> s.truncatedTo(ChronoUnit.SECONDS) + " (" + time(e.leaderFor()) + " ago)").orElse("-"),
                e.leader().isEmpty() ? "-" : e.ttl().map(d -> time(Optional.of(d))).orElse("none")};
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

    /** The text of {@code inspect semaphore}; {@code redacted}: without the tokens, as the dashboard shows it. */
    static List<String> text(SemaphoreState s, boolean redacted) {
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
                h.row("  " + token(x.token(), redacted), Integer.toString(x.permits()), x.holderId().orElse("unknown"), number(x.fence()),
                        time(x.since().map(since -> Duration.between(since, now)).filter(d -> !d.isNegative())),
                        time(Optional.of(x.ttl())));
            }
            lines.addAll(h.lines());
        }
        lines.add("waiters:" + (s.waiters().isEmpty() ? " none" : ""));
        if (!s.waiters().isEmpty()) {
            Table w = new Table("  TOKEN", "WAITING FOR", "PLACE LAPSES IN");
            for (SemaphoreState.Waiter x : s.waiters()) {
                w.row("  " + token(x.token(), redacted), time(Optional.of(x.waiting())), time(Optional.of(x.lapsesIn())));
            }
            lines.addAll(w.lines());
        }
        return lines;
    }

    // ---- rate limiters

    static String[] row(RateLimiterState r) {
        return new String[] {r.name(), busy(r), time(r.ttl())};
    }

    static List<String> text(RateLimiterState r) {
        Table t = new Table("rate limiter", r.name());
        t.row("busy for", busy(r) + (r.idle() ? " (at its full burst)" : " (then back at its full burst)"));
        t.row("arrival time", r.theoreticalArrival().truncatedTo(ChronoUnit.MILLIS)
                + " (theoretical, by Redis's clock)");
        t.row("ttl left", time(r.ttl()));
        t.row("limit", "not stored: each client applies its own");
        return t.lines();
    }

    // ---- latches

    static String[] row(LatchState c) {
        return new String[] {c.name(), Long.toString(c.count()), c.open() ? "open" : "closed",
                Long.toString(c.waiters()), time(c.ttl())};
    }

    static List<String> text(LatchState c) {
        Table t = new Table("latch", c.name());
        t.row("count", Long.toString(c.count()));
        t.row("state", c.open() ? "open" : "closed (opens at 0)");
        t.row("waiters", Long.toString(c.waiters()));
        t.row("ttl left", time(c.ttl()) + (c.ttl().isPresent()
                ? " (then gone: the next use starts it again with its full count)" : ""));
        return t.lines();
    }

    // ---- cells

    private static String busy(RateLimiterState r) {
        return r.idle() ? "idle" : time(Optional.of(r.busyFor()));
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
}
