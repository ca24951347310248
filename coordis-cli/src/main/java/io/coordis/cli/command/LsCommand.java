package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.ReportOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.cli.view.Cells;
import io.coordis.cli.view.KindArgument;
import io.coordis.cli.view.Listing;
import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.ObjectKind;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code coordis ls [KIND] [--match GLOB] [--watch D] [-o text|json]}: one table per kind of object. Objects
 * are found with SCAN and PUBSUB CHANNELS, never KEYS; see {@link Inspector} for why and for how foreign
 * objects are recognised.
 */
@Command(name = "ls", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"List locks, elections, queues, signals, semaphores, rate limiters and latches: one table per "
                + "kind (without KIND, all of them; semaphores, rate limiters and latches only when there are any).",
                "Objects are found with SCAN (never KEYS) and PUBSUB CHANNELS, so locks and queues made by other "
                        + "clients show up too (a plain SET NX PX lock with an unknown holder). SCAN walks the "
                        + "whole keyspace: cheap on a Redis kept for coordination, slow on a big data Redis.",
                "With several --url (Redlock), locks are read on every node; the rest on the first."},
        footer = {"", "Exit status: 0 listed (also when nothing matched); 64 usage (unknown kind, bad glob); "
                + "69 Redis unavailable; 77 credentials refused; 130 interrupted while watching."})
public final class LsCommand implements Callable<Integer> {
    /** Cursor home, then erase the screen. */
    private static final String CLEAR_SCREEN = "\033[H\033[2J";

    @Parameters(index = "0", arity = "0..1", paramLabel = "KIND",
            description = "locks, elections, queues, signals, semaphores, rate-limiters (or rates) or latches. "
                    + "Default: all of them.")
    String kind;

    @Option(names = "--match", paramLabel = "GLOB", defaultValue = "*",
            description = "Only names matching this Redis glob (* ? [abc] \\x), after --key-prefix if given. "
                    + "Default: *.")
    String match;

    @Option(names = "--watch", paramLabel = "DURATION",
            description = "Redraw every DURATION (e.g. 2s) until Ctrl-C; with -o json one document per table and frame.")
    Duration watch;

    @Mixin
    ReportOptions report = new ReportOptions();

    private final Terminal terminal;

    public LsCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code ls} command, saying what its {@code -o} formats print. */
    public static CommandLine create(Terminal terminal) {
        return Descriptions.of(new LsCommand(terminal), "output",
                "text (tables) or json (one JSON document per table, one per line). Default: text.");
    }

    @Override
    public Integer call() throws InterruptedException {
        List<ObjectKind> kinds = kind == null ? List.of(ObjectKind.values())
                : List.of(KindArgument.parse(kind, report.spec(), true));
        boolean json = report.json();
        try {
            Glob.of(match);
        } catch (IllegalArgumentException e) {
            throw report.usage("--match: " + e.getMessage());
        }
        if (watch != null && watch.compareTo(Duration.ofMillis(100)) < 0) {
            throw report.usage("--watch must be at least 100ms, was "
                    + watch.toMillis() + "ms: redraw every 1s or 2s, say");
        }
        try (Coordis coordis = Connections.open(report.urls().all(), report.spec())) {
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
            lines.add("-- " + at.truncatedTo(ChronoUnit.SECONDS) + " (every " + Cells.time(Optional.of(watch))
                    + ", Ctrl-C to stop) --");
        }
        lines.addAll(Listing.render(inspector, kinds, pattern, json, at));
        if (watch != null && !json && onScreen()) {
            terminal.out().print(CLEAR_SCREEN); // redraw in place, as watch(1) does
        }
        terminal.output(String.join("\n", lines));
    }

    /** Whether standard output is the terminal the user watches (not a pipe or a file). */
    private boolean onScreen() {
        return terminal.out() == System.out && System.console() != null;
    }
}
