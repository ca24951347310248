package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Json;
import io.coordis.cli.support.OutputOption;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.UrlOption;
import io.coordis.cli.support.VersionProvider;
import io.coordis.doctor.DoctorReport;
import io.coordis.doctor.Finding;
import io.coordis.doctor.NodeFacts;
import io.coordis.doctor.OldLayoutRemoval;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/** {@code coordis doctor}: is this Redis set up the way Coordis needs it, and if not, what to change. */
@Command(name = "doctor", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Check the Redis server(s) for what Coordis needs: version and role, replication, "
                + "maxmemory-policy (anything but noeviction may evict locks silently), persistence, whether the "
                + "ACL user may run every command Coordis sends, and with several --url (Redlock) the clock skew "
                + "between the nodes (TIME).",
                "One line per finding: OK, WARN, FAIL or UNKNOWN (the user may not read it), then what to do.",
                "Keys of the old per-name layout (per-name fencing and term counters, holder details without "
                + "expiry) are counted with SCAN under the key prefix, their memory estimated from a sample.",
                "Read-only (INFO, CONFIG GET, ACL WHOAMI/GETUSER/CAT, TIME, SCAN, PTTL, GET, MEMORY USAGE), except "
                + "with --remove-old-layout."},
        footer = {"", "Exit status: 0 no FAIL (warnings allowed); 1 at least one FAIL; 64 usage; 69 Redis "
                + "unavailable; 77 credentials refused."})
public final class DoctorCommand implements Callable<Integer> {

    @Option(names = "--user", paramLabel = "NAME",
            description = "Check this ACL user's permissions instead of the connected one's (needs a URL with "
                    + "administrator rights, as ACL GETUSER does).")
    String user;

    @Option(names = "--max-skew", paramLabel = "D", defaultValue = "100ms",
            description = "Warn when Redlock nodes' clocks differ by more. Default: ${DEFAULT-VALUE} (1%% of a 10 s TTL).")
    Duration maxSkew;

    @Mixin
    OutputOption output = new OutputOption();

    @Option(names = "--remove-old-layout",
            description = "Instead of checking, delete the keys of the old per-name layout that are not in use, in "
                    + "batches: per-name fencing and term counters (always: new numbers start above them), holder "
                    + "details whose lock does not hold their token, and other state without expiry whose object "
                    + "is gone. Run it once no client of the old layout is left.")
    boolean removeOldLayout;

    @Mixin
    UrlOption urls = new UrlOption();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public DoctorCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code doctor} command, saying what its {@code -o} formats print. */
    public static CommandLine create(Terminal terminal) {
        return Descriptions.of(new DoctorCommand(terminal), "output",
                "text (one line per finding) or json (one document). Default: text.");
    }

    @Override
    public Integer call() throws InterruptedException {
        boolean json = output.json(spec);
        if (maxSkew.isNegative() || maxSkew.isZero()) {
            throw new ParameterException(spec.commandLine(), "--max-skew must be positive, e.g. 100ms");
        }
        if (user != null && user.isBlank()) {
            throw new ParameterException(spec.commandLine(), "--user must name an ACL user, e.g. --user app");
        }
        if (removeOldLayout) {
            if (user != null) {
                throw new ParameterException(spec.commandLine(), "--remove-old-layout deletes as the connected user; "
                        + "leave out --user");
            }
            return removeOldLayout(json);
        }
        DoctorReport report;
        try (Coordis coordis = Connections.open(urls.all(), spec)) {
            report = coordis.doctor().examine(Optional.ofNullable(user), maxSkew);
            report = report.with(coordis.doctor().oldLayout());
        }
        if (json) {
            terminal.output(Json.write(json(report)));
        } else {
            for (Finding f : report.findings()) {
                String severity = String.format("%-7s", f.severity());
                if (terminal.colour()) {
                    String code = switch (f.severity()) {
                        case OK -> "32";
                        case WARN -> "33";
                        case FAIL -> "31";
                        case UNKNOWN -> "35";
                    };
                    severity = "\033[" + code + "m" + f.severity() + "\033[0m" + " ".repeat(7 - f.severity().name().length());
                }
                terminal.output(String.format("%s %-21s %-12s %s", severity, f.node(), f.topic(), f.message()));
                if (!f.fix().isEmpty() && f.severity() != Finding.Severity.OK) {
                    terminal.output(String.format("%-7s %-21s %-12s -> %s", "", "", "", f.fix()));
                }
            }
        }
        return report.worst() == Finding.Severity.FAIL ? 1 : ExitCodes.OK;
    }

    private int removeOldLayout(boolean json) throws InterruptedException {
        List<OldLayoutRemoval> done;
        try (Coordis coordis = Connections.open(urls.all(), spec)) {
            done = coordis.doctor().removeOldLayout();
        }
        if (json) {
            List<Object> nodes = new ArrayList<>();
            for (OldLayoutRemoval r : done) {
                Map<String, Object> node = new LinkedHashMap<>();
                node.put("node", r.node());
                node.put("removed", new TreeMap<>(r.removed()));
                node.put("kept", r.kept());
                nodes.add(node);
            }
            terminal.output(Json.write(Map.of("removedOldLayout", nodes)));
            return ExitCodes.OK;
        }
        for (OldLayoutRemoval r : done) {
            List<String> parts = new ArrayList<>();
            new TreeMap<>(r.removed()).forEach((suffix, n) ->
                    parts.add(String.format(Locale.ROOT, "%,d {name}:%s", n, suffix)));
            terminal.output(String.format(Locale.ROOT, "%s removed %,d key(s) of the old per-name layout%s; kept %,d "
                    + "in use",
                    r.node(), r.total(), parts.isEmpty() ? "" : " (" + String.join(", ", parts) + ")", r.kept()));
        }
        terminal.output("Per-name fencing and term counters are removed always: new fencing numbers and terms are "
                + "taken from Redis's clock and lie far above them.");
        return ExitCodes.OK;
    }

    static Map<String, Object> json(DoctorReport report) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("worst", report.worst().name());
        List<Object> nodes = new ArrayList<>();
        for (NodeFacts n : report.nodes()) {
            Map<String, Object> node = new LinkedHashMap<>();
            node.put("address", n.address());
            node.put("version", n.version());
            node.put("role", n.role());
            node.put("replicas", n.replicas());
            node.put("masterLink", n.masterLink());
            node.put("maxmemory", n.maxmemory());
            node.put("maxmemoryPolicy", n.maxmemoryPolicy());
            node.put("appendOnly", n.appendOnly());
            node.put("appendFsync", n.appendFsync());
            node.put("save", n.saveRules());
            node.put("user", n.user());
            node.put("aclMethod", n.aclMethod());
            node.put("missingRequired", n.missingRequired());
            node.put("missingOptional", n.missingOptional());
            node.put("keyPatterns", n.keyPatterns());
            node.put("channelPatterns", n.channelPatterns());
            node.put("clockOffsetMicros", n.clockOffsetMicros());
            node.put("clockUncertaintyMicros", n.clockUncertaintyMicros());
            nodes.add(node);
        }
        doc.put("nodes", nodes);
        List<Object> findings = new ArrayList<>();
        for (Finding f : report.findings()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("severity", f.severity().name());
            m.put("node", f.node());
            m.put("topic", f.topic());
            m.put("message", f.message());
            m.put("fix", f.fix());
            findings.add(m);
        }
        doc.put("findings", findings);
        doc.put("skewMicros", report.skewMicros());
        doc.put("skewUncertaintyMicros", report.skewUncertaintyMicros());
        return doc;
    }
}
