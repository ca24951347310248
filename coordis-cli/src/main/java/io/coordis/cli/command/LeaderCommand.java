package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Json;
import io.coordis.cli.support.ReportOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.election.Leader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code coordis leader NAME}: prints who leads the election NAME and with which term. */
@Command(name = "leader", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Print the current leader of the election NAME and its term: 'leader=ID term=T' "
                + "(term '-' when the key was not written by Coordis).",
        footer = {"", "Exit status: 0 a leader was printed; 1 nobody leads; 64 usage; 65 the key holds another "
                + "type; 69 Redis unavailable; 77 credentials refused."})
public final class LeaderCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "NAME", description = "The election's name (the Redis key).")
    String name;

    @Mixin
    ReportOptions report = new ReportOptions();

    private final Terminal terminal;

    public LeaderCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code leader} command, saying what its {@code -o} formats print. */
    public static CommandLine create(Terminal terminal) {
        return Descriptions.of(new LeaderCommand(terminal), "output",
                "text ('leader=ID term=T') or json ({\"name\",\"leader\",\"term\",\"ttlMillis\"}). Default: text.");
    }

    @Override
    public Integer call() {
        if (name.isBlank()) {
            throw report.usage("election name must not be blank: name the election, "
                    + "e.g. reports:scheduler");
        }
        boolean json = report.json();
        try (Coordis coordis = Connections.open(report.urls().one(), report.spec())) {
            Optional<Leader> leader = coordis.election(name).leader();
            if (leader.isEmpty()) {
                terminal.say("nobody leads '" + name + "'");
                return ExitCodes.NO_LEADER;
            }
            if (json) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("name", name);
                doc.put("leader", leader.get().id());
                doc.put("term", leader.get().term());
                doc.put("ttlMillis", leader.get().ttl());
                terminal.output(Json.write(doc));
            } else {
                terminal.output(leader.get().describe());
            }
            return ExitCodes.OK;
        }
    }
}
