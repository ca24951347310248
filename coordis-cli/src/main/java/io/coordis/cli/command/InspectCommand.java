package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.WrongTypeException;
import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Json;
import io.coordis.cli.support.ReportOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.cli.view.Inspection;
import io.coordis.cli.view.KindArgument;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.ObjectKind;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code coordis inspect lock|election|queue|signal|semaphore|rate-limiter|latch NAME [-o text|json]}: everything
 * about one object.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Show everything about one lock, election, queue, signal, semaphore, rate limiter or latch.",
                "lock: holder (id, host, pid), token, since, TTL left of the lease TTL, fencing number and "
                        + "counter, waiters, flags, each node's value, TTL and fence (several --url: Redlock, "
                        + "and whether the nodes agree), and forced unlocks (newest first).",
                "election: leader, term, since, TTL left, term counter, observers. queue: depth, ages, "
                        + "in-flight, overdue, dead letters, each consumer. signal: subscribers, latched event.",
                "semaphore: permit count, permits held, fencing counter, each holder (permits, id, fence, TTL "
                        + "left) and each waiter in line.",
                "rate-limiter (or rate): how long until it is idle again, by Redis's clock (its limit is not "
                        + "stored), its theoretical arrival time and TTL. latch: count, open or not, waiters, TTL."},
        footer = {"", "Exit status: 0 shown; 1 nothing known under NAME; 64 usage (unknown kind, or NAME holds "
                + "another kind of object); 69 Redis unavailable; 77 credentials refused."})
public final class InspectCommand implements Callable<Integer> {
    /** Nothing is known under the name (like {@code leader} when nobody leads). */
    static final int NOTHING_FOUND = 1;

    @Parameters(index = "0", paramLabel = "KIND",
            description = "lock, election, queue, signal, semaphore, rate-limiter (or rate) or latch.")
    String kind;

    @Parameters(index = "1", paramLabel = "NAME", description = "The object's name (its Redis key or channel).")
    String name;

    @Mixin
    ReportOptions report = new ReportOptions();

    private final Terminal terminal;

    public InspectCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        ObjectKind k = KindArgument.parse(kind, report.spec(), false);
        boolean json = report.json();
        if (name.isBlank()) {
            throw report.usage(k.singular() + " name must not be blank: give the "
                    + k.singular() + "'s name, e.g. orders:42");
        }
        try (Coordis coordis = Connections.open(report.urls().all(), report.spec())) {
            Inspector inspector = coordis.inspector();
            String name = coordis.keyPrefix() + this.name;
            Optional<Inspection> view = Inspection.of(inspector, k, name, false);
            if (view.isEmpty()) {
                terminal.say("no " + k.singular() + " '" + name + "' (nothing under that name, nor the keys Coordis "
                        + "keeps beside it" + (k == ObjectKind.RATE_LIMITER ? ": an idle rate limiter keeps no key" : "")
                        + ")");
                return NOTHING_FOUND;
            }
            terminal.output(json ? Json.write(view.get().json()) : String.join("\n", view.get().text()));
            return ExitCodes.OK;
        } catch (WrongTypeException e) {
            // a rate limiter's or latch's key is one Coordis keeps beside the name ({name}:rate): no other object's
            boolean beside = k == ObjectKind.RATE_LIMITER || k == ObjectKind.LATCH;
            throw new CommandFailure(ExitCodes.USAGE, e.getMessage() + (beside ? "" : hint(e)), e);
        }
    }

    /** Which command shows the object the key is, when it is another kind of Coordis object. */
    private static String hint(WrongTypeException e) {
        return switch (String.valueOf(e.actualType())) {
            case "list" -> " (a queue? try 'inspect queue " + e.key() + "')";
            case "zset" -> " (a semaphore? try 'inspect semaphore " + e.key() + "')";
            case "election" -> " (try 'inspect election " + e.key() + "')";
            case "lock" -> " (try 'inspect lock " + e.key() + "')";
            default -> "";
        };
    }
}
