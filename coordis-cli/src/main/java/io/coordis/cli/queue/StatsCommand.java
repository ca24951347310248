package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Json;
import io.coordis.cli.support.OutputOption;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.QueueStats;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code queue stats Q [-o json]}. */
@Command(name = "stats", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Show depth, in-flight messages per consumer, age of the oldest message, dead letters.")
final class StatsCommand implements Callable<Integer> {
    @Mixin
    OutputOption output = new OutputOption();

    @Mixin
    QueueTarget queue = new QueueTarget();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    StatsCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code stats} command, saying what its {@code -o} formats print. */
    static CommandLine create(Terminal terminal) {
        return Descriptions.of(new StatsCommand(terminal), "output",
                "text (default) or json.");
    }

    @Override
    public Integer call() throws InterruptedException {
        String name = queue.name();
        if (!output.format().equals("text") && !output.format().equals("json")) {
            throw new ParameterException(spec.commandLine(),
                    "-o must be text or json, was '" + output.format() + "'");
        }
        try (Coordis coordis = queue.connect()) {
            QueueStats s = coordis.reliableQueue(name).stats();
            terminal.output(output.format().equals("json") ? json(s) : text(s));
        }
        return ExitCodes.OK;
    }

    static String text(QueueStats s) {
        StringBuilder b = new StringBuilder();
        b.append("queue ").append(s.queue()).append('\n');
        b.append("depth ").append(s.depth()).append('\n');
        b.append("oldest ").append(s.oldestAge().map(DurationText::format).orElse("unknown")).append('\n');
        b.append("in-flight ").append(s.inFlight()).append('\n');
        b.append("delayed ").append(s.delayed()).append('\n');
        b.append("dead ").append(s.deadLetters()).append('\n');
        b.append("settled ").append(s.settled()).append('\n');
        for (QueueStats.ConsumerStats c : s.consumers()) {
            b.append("consumer ").append(c.id()).append(c.alive() ? " alive" : " dead").append(" in-flight ")
                    .append(c.inFlight()).append(" last-heartbeat ").append(c.lastHeartbeat()).append('\n');
        }
        return b.substring(0, b.length() - 1);
    }

    static String json(QueueStats s) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("queue", s.queue());
        doc.put("depth", s.depth());
        doc.put("oldest_ms", s.oldestAge());
        doc.put("in_flight", s.inFlight());
        doc.put("delayed", s.delayed());
        doc.put("dead", s.deadLetters());
        doc.put("settled", s.settled());
        List<Object> consumers = new ArrayList<>();
        for (QueueStats.ConsumerStats c : s.consumers()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("id", c.id());
            o.put("alive", c.alive());
            o.put("in_flight", c.inFlight());
            o.put("last_heartbeat", c.lastHeartbeat().toString());
            consumers.add(o);
        }
        doc.put("consumers", consumers);
        return Json.write(doc);
    }
}
