package io.coordis.cli.view;

import io.coordis.cli.support.Json;
import io.coordis.inspect.ElectionState;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.LatchState;
import io.coordis.inspect.LockState;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.ObjectState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.RateLimiterState;
import io.coordis.inspect.SemaphoreState;
import io.coordis.inspect.SignalState;
import io.coordis.inspect.StateDocuments;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One kind's objects as read: the table {@code ls} prints, and its JSON document ({@link StateDocuments}).
 * Immutable once made (the list is the one it was given).
 */
public record Listing(ObjectKind kind, List<ObjectState> states) {
    /**
     * The tables (or JSON documents, one per kind) of the objects of {@code kinds} whose names match
     * {@code match}, as {@code coordis ls} prints them.
     */
    public static List<String> render(Inspector inspector, List<ObjectKind> kinds, String match, boolean json, Instant at)
            throws InterruptedException {
        List<String> lines = new ArrayList<>();
        for (Listing listing : listings(inspector, kinds, match)) {
            if (json) {
                lines.add(Json.write(listing.document(match, at, false)));
            } else {
                if (kinds.size() > 1) {
                    if (listing.kind() != kinds.get(0)) {
                        lines.add("");
                    }
                    lines.add(listing.kind().plural() + " (" + listing.states().size() + ")");
                }
                lines.addAll(listing.table().lines());
            }
        }
        return lines;
    }

    /**
     * The objects of each of {@code kinds} whose names match {@code match}; in the listing of every kind,
     * semaphores, rate limiters and latches only when there are any (so that the listing of every kind keeps the
     * tables and documents it had before they were added).
     */
    public static List<Listing> listings(Inspector inspector, List<ObjectKind> kinds, String match)
            throws InterruptedException {
        List<Listing> listings = new ArrayList<>();
        for (ObjectKind k : kinds) {
            List<ObjectState> states = inspector.list(k, match);
            if (shownWhenAny(k) && states.isEmpty() && kinds.size() > 1) {
                continue;
            }
            listings.add(new Listing(k, states));
        }
        return listings;
    }

    /** Whether the listing of every kind leaves {@code kind} out when it has no object. */
    private static boolean shownWhenAny(ObjectKind kind) {
        return kind == ObjectKind.SEMAPHORE || kind == ObjectKind.RATE_LIMITER || kind == ObjectKind.LATCH;
    }

    /**
     * The document {@code ls -o json} prints for this kind: kind, match, at and items.
     *
     * @param redacted whether the items leave out the tokens, as the dashboard serves them
     */
    public Map<String, Object> document(String match, Instant at, boolean redacted) {
        return StateDocuments.listing(kind, match, at, states, redacted);
    }

    /** The table {@code ls} prints for this kind. */
    Table table() {
        Table table = new Table(switch (kind) {
            case LOCK -> LockViews.LOCK_COLUMNS;
            case ELECTION -> StateViews.ELECTION_COLUMNS;
            case QUEUE -> StateViews.QUEUE_COLUMNS;
            case SIGNAL -> StateViews.SIGNAL_COLUMNS;
            case SEMAPHORE -> StateViews.SEMAPHORE_COLUMNS;
            case RATE_LIMITER -> StateViews.RATE_LIMITER_COLUMNS;
            case LATCH -> StateViews.LATCH_COLUMNS;
        });
        for (ObjectState s : states) {
            if (s instanceof LockState l) {
                table.row(LockViews.row(l));
            } else if (s instanceof ElectionState e) {
                table.row(StateViews.row(e));
            } else if (s instanceof QueueState q) {
                table.row(StateViews.row(q));
            } else if (s instanceof SemaphoreState m) {
                table.row(StateViews.row(m));
            } else if (s instanceof RateLimiterState r) {
                table.row(StateViews.row(r));
            } else if (s instanceof LatchState c) {
                table.row(StateViews.row(c));
            } else {
                table.row(StateViews.row((SignalState) s));
            }
        }
        return table;
    }
}
