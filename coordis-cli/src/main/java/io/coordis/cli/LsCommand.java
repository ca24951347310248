package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.inspect.ElectionState;
import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.LockState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.SemaphoreState;
import io.coordis.inspect.SignalState;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code coordis ls [KIND] [--match GLOB] [--watch D] [-o text|json]}: one table per kind of object. Objects
 * are found with SCAN and PUBSUB CHANNELS, never KEYS; see {@link Inspector} for why and for how foreign
 * objects are recognised.
 */
@Command(name = "ls", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"List locks, elections, queues, signals and semaphores: one table per kind (without KIND, "
                + "all of them; semaphores only when there are any).",
                "Objects are found with SCAN (never KEYS) and PUBSUB CHANNELS, so locks and queues made by other "
                        + "clients show up too (a plain SET NX PX lock with an unknown holder). SCAN walks the "
                        + "whole keyspace: cheap on a Redis kept for coordination, slow on a big data Redis.",
                "With several --url (Redlock), locks are read on every node; the rest on the first."},
        footer = {"", "Exit status: 0 listed (also when nothing matched); 64 usage (unknown kind, bad glob); "
                + "69 Redis unavailable; 77 credentials refused; 130 interrupted while watching."})
final class LsCommand implements Callable<Integer> {
    /** Cursor home, then erase the screen. */
    private static final String CLEAR_SCREEN = "\033[H\033[2J";

    @Parameters(index = "0", arity = "0..1", paramLabel = "KIND",
            description = "locks, elections, queues, signals or semaphores. Default: all of them.")
    String kind;

    @Option(names = "--match", paramLabel = "GLOB", defaultValue = "*",
            description = "Only names matching this Redis glob (* ? [abc] \\x), after --key-prefix if given. "
                    + "Default: *.")
    String match;

    @Option(names = "--watch", paramLabel = "DURATION",
            description = "Redraw every DURATION (e.g. 2s) until Ctrl-C; with -o json one document per table and frame.")
    Duration watch;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "text",
            description = "text (tables) or json (one JSON document per table, one per line). Default: text.")
    String output;

    @Mixin
    RedisUrls urls = new RedisUrls();

    @ParentCommand
    CoordisCommand parent;

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    LsCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        List<ObjectKind> kinds = kind == null ? List.of(ObjectKind.values()) : List.of(ObjectKind.parse(kind, spec, true));
        boolean json = ObjectKind.json(output, spec);
        try {
            Glob.of(match);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--match: " + e.getMessage());
        }
        if (watch != null && watch.compareTo(Duration.ofMillis(100)) < 0) {
            throw new ParameterException(spec.commandLine(), "--watch must be at least 100ms, was "
                    + watch.toMillis() + "ms: redraw every 1s or 2s, say");
        }
        try (Coordis coordis = Connections.open(parent.urls(spec, urls), spec)) {
            Inspector inspector = coordis.inspector();
            while (true) {
                frame(inspector, kinds, coordis.keyPrefix() + match, json);
                if (watch == null) {
                    return ExitCodes.OK;
                }
                Thread.sleep(watch.toMillis());
            }
        }
    }

    private void frame(Inspector inspector, List<ObjectKind> kinds, String pattern, boolean json)
            throws InterruptedException {
        Instant at = Instant.now();
        List<String> lines = new ArrayList<>();
        if (watch != null && !json) {
            lines.add("-- " + at.truncatedTo(ChronoUnit.SECONDS) + " (every " + StateViews.time(java.util.Optional.of(watch))
                    + ", Ctrl-C to stop) --");
        }
        lines.addAll(render(inspector, kinds, pattern, json, at));
        if (watch != null && !json && onScreen()) {
            terminal.out().print(CLEAR_SCREEN); // redraw in place, as watch(1) does
        }
        terminal.output(String.join("\n", lines));
    }

    /**
     * The tables (or JSON documents, one per kind) of the objects of {@code kinds} whose names match
     * {@code match}, as {@code coordis ls} prints them.
     */
    static List<String> render(Inspector inspector, List<ObjectKind> kinds, String match, boolean json, Instant at)
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
    static List<Listing> listings(Inspector inspector, List<ObjectKind> kinds, String match)
            throws InterruptedException {
        List<Listing> listings = new ArrayList<>();
        for (ObjectKind k : kinds) {
            Table table;
            List<Object> items = new ArrayList<>();
            List<Object> states = new ArrayList<>();
            switch (k) {
                case LOCKS -> {
                    table = new Table(StateViews.LOCK_COLUMNS);
                    for (LockState l : inspector.locks(match)) {
                        table.row(StateViews.row(l));
                        items.add(StateViews.json(l, false));
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

    /**
     * One kind's objects: the table {@code ls} prints, the items of its JSON document, and for locks the states they
     * were made from (the dashboard shows each Redlock node's part).
     */
    record Listing(ObjectKind kind, Table table, List<Object> items, List<Object> states) {
        /** The document {@code ls -o json} prints for this kind: kind, match, at and items. */
        Map<String, Object> document(String match, Instant at) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("kind", kind.plural());
            doc.put("match", match);
            doc.put("at", at);
            doc.put("items", items);
            return doc;
        }
    }

    /** Whether standard output is the terminal the user watches (not a pipe or a file). */
    private boolean onScreen() {
        return terminal.out() == System.out && System.console() != null;
    }
}
