package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Json;
import io.coordis.cli.support.ReportOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.ForcedUnlock;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code coordis force-unlock NAME}: shows who holds the lock, asks, then removes it and bumps its fencing
 * number (see {@link DistributedLock#forceUnlock(LockHolder, String)}), leaving an audit entry.
 */
@Command(name = "force-unlock", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Remove the lock NAME whoever holds it, for an operator stepping in by hand.",
                "Shows the holder and asks first (unless --yes). Bumps the lock's fencing number, so the old "
                        + "holder's later writes carry a lower number than the next holder's, and records who, "
                        + "when and why in the list {NAME}:audit. A Coordis holder's watchdog notices at its next "
                        + "renewal and reports the lock lost ('coordis lock' then stops its command, exit 75)."},
        footer = {"", "Prints on stdout: forced NAME holder=ID fence=N (or one JSON object with -o json).",
                "Exit status: 0 forced; 1 the lock was not held, the answer was not yes, or the holder changed "
                        + "before it was forced; 64 usage (also: no terminal to ask on and no --yes); 65 the key "
                        + "holds another type; 69 Redis unavailable; 77 credentials or permission refused."})
public final class ForceUnlockCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name (the Redis key).")
    String name;

    @Option(names = {"-y", "--yes"}, description = "Do not ask; needed when there is no terminal (scripts).")
    boolean yes;

    @Option(names = "--reason", paramLabel = "TEXT", defaultValue = "",
            description = "Why, for the audit entry (at most 1000 characters).")
    String reason;

    @Option(names = "--legacy", description = "The lock is a legacy SETNX lock (its value is its expiry time).")
    boolean legacy;

    @Mixin
    ReportOptions report = new ReportOptions();

    private final Terminal terminal;

    public ForceUnlockCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code force-unlock} command, saying what its {@code -o} formats print. */
    public static CommandLine create(Terminal terminal) {
        return Descriptions.of(new ForceUnlockCommand(terminal), "output",
                "text (default) or json.");
    }

    @Override
    public Integer call() {
        if (name.isBlank()) {
            throw report.usage("lock name must not be blank: name the lock to force open, e.g. nightly-report");
        }
        if (!report.format().equals("text") && !report.format().equals("json")) {
            throw report.usage("-o must be text or json, was '" + report.format() + "'");
        }
        if (reason.length() > 1000) {
            throw report.usage("--reason is " + reason.length() + " characters long: keep it under 1000");
        }
        boolean ask = !yes;
        if (ask && !terminal.interactive()) {
            throw report.usage("not forcing '" + name + "' open without a confirmation, and there is no terminal to ask "
                    + "on: pass --yes");
        }
        try (Coordis coordis = Connections.open(report.urls().all(), report.spec())) {
            DistributedLock lock = legacy ? legacyLock(coordis) : coordis.lock(name);
            Optional<LockHolder> holder = lock.holder();
            if (holder.isEmpty()) {
                terminal.say("lock '" + name + "' is not held; nothing to force");
                return ExitCodes.NOT_ACQUIRED;
            }
            terminal.say("lock '" + name + "' is held by " + holder.get().describe());
            if (ask && !confirmed()) {
                terminal.say("not forced");
                return ExitCodes.NOT_ACQUIRED;
            }
            Optional<ForcedUnlock> forced = lock.forceUnlock(holder.get(), reason);
            if (forced.isEmpty()) {
                terminal.say("lock '" + name + "' was released or changed hands meanwhile; nothing forced "
                        + "(run it again to see the new holder)");
                return ExitCodes.NOT_ACQUIRED;
            }
            ForcedUnlock f = forced.get();
            if (f.nodes() > 1 && f.forcedNodes() < f.nodes() / 2 + 1) {
                terminal.say("warning: removed on only " + f.forcedNodes() + " of " + f.nodes() + " nodes; it may "
                        + "count as held until it expires on the others");
            }
            terminal.output(report.format().equals("json") ? json(f) : text(f));
            return ExitCodes.OK;
        }
    }

    private DistributedLock legacyLock(Coordis coordis) {
        try {
            return coordis.legacyLock(name, LockOptions.defaults());
        } catch (IllegalStateException e) {
            throw report.usage("--legacy locks live on one Redis: " + e.getMessage());
        }
    }

    /** Asks on the terminal; only {@code y} or {@code yes} (any case) confirms. */
    private boolean confirmed() {
        terminal.err().print("Force '" + name + "' open? Its holder loses it. [y/N] ");
        terminal.err().flush();
        try {
            String answer = new BufferedReader(new InputStreamReader(terminal.in(), StandardCharsets.UTF_8)).readLine();
            String a = answer == null ? "" : answer.strip().toLowerCase(Locale.ROOT);
            return a.equals("y") || a.equals("yes");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the answer", e);
        }
    }

    static String text(ForcedUnlock f) {
        return "forced " + f.key() + " holder=" + f.holderId().orElse("unknown") + " fence=" + f.fencingToken()
                + (f.nodes() > 1 ? " nodes=" + f.forcedNodes() + "/" + f.nodes() : "");
    }

    static String json(ForcedUnlock f) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("name", f.key());
        doc.put("holder", f.holderId().orElse("unknown"));
        doc.put("fence", f.fencingToken());
        doc.put("forced_nodes", f.forcedNodes());
        doc.put("nodes", f.nodes());
        return Json.write(doc);
    }
}
