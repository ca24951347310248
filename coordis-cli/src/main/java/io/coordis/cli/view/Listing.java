package io.coordis.cli.view;

import io.coordis.cli.support.Json;
import io.coordis.inspect.ElectionState;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.LockState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.SemaphoreState;
import io.coordis.inspect.SignalState;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One kind's objects: the table {@code ls} prints, the items of its JSON document, and for locks the states they
 * were made from (the dashboard shows each Redlock node's part).
 * Immutable once made (the lists are those it was given).
 */
public record Listing(ObjectKind kind, Table table, List<Object> items, List<Object> states) {
    /**
     * The tables (or JSON documents, one per kind) of the objects of {@code kinds} whose names match
     * {@code match}, as {@code coordis ls} prints them.
     */
    public static List<String> render(Inspector inspector, List<ObjectKind> kinds, String match, boolean json, Instant at)
            throws InterruptedException {
        List<String> lines = new ArrayList<>();
        for (Listing listing : listings(inspector, kinds, match)) {
            if (json) {
                lines.add(Json.write(listing.document(match, at)));
            } else {
                if (kinds.size() > 1) {
                    if (listing.kind() != kinds.get(0)) {
                        lines.add("");
                    }
                    lines.add(listing.kind().plural() + " (" + listing.items().size() + ")");
                }
                lines.addAll(listing.table().lines());
            }
        }
        return lines;
    }

    /**
     * The objects of each of {@code kinds} whose names match {@code match}, as table rows and as JSON items; in
     * the listing of every kind, semaphores only when there are any.
     */
    public static List<Listing> listings(Inspector inspector, List<ObjectKind> kinds, String match)
            throws InterruptedException {
        List<Listing> listings = new ArrayList<>();
        for (ObjectKind k : kinds) {
            Table table;
            List<Object> items = new ArrayList<>();
            List<Object> states = new ArrayList<>();
            switch (k) {
                case LOCKS -> {
                    table = new Table(LockViews.LOCK_COLUMNS);
                    for (LockState l : inspector.locks(match)) {
                        table.row(LockViews.row(l));
                        items.add(LockViews.json(l, false));
                        states.add(l);
                    }
                }
                case ELECTIONS -> {
                    table = new Table(StateViews.ELECTION_COLUMNS);
                    for (ElectionState e : inspector.elections(match)) {
                        table.row(StateViews.row(e));
                        items.add(StateViews.json(e));
                    }
                }
                case QUEUES -> {
                    table = new Table(StateViews.QUEUE_COLUMNS);
                    for (QueueState q : inspector.queues(match)) {
                        table.row(StateViews.row(q));
                        items.add(StateViews.json(q));
                    }
                }
                case SIGNALS -> {
                    table = new Table(StateViews.SIGNAL_COLUMNS);
                    for (SignalState s : inspector.signals(match)) {
                        table.row(StateViews.row(s));
                        items.add(StateViews.json(s));
                    }
                }
                default -> {
                    table = new Table(StateViews.SEMAPHORE_COLUMNS);
                    for (SemaphoreState s : inspector.semaphores(match)) {
                        table.row(StateViews.row(s));
                        items.add(StateViews.json(s));
                    }
                    if (items.isEmpty() && kinds.size() > 1) {
                        continue;
                    }
                }
            }
            listings.add(new Listing(k, table, items, states));
        }
        return listings;
    }

    /** The document {@code ls -o json} prints for this kind: kind, match, at and items. */
    public Map<String, Object> document(String match, Instant at) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("kind", kind.plural());
        doc.put("match", match);
        doc.put("at", at);
        doc.put("items", items);
        return doc;
    }
}
