package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.cli.run.Budget;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Json;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code queue pop Q [--wait D] [--reliable] [-o json]}. */
@Command(name = "pop", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Take one message from queue Q and print the payload alone on stdout (exit 1 if none).",
                "--reliable keeps it in a processing slot until 'coordis queue ack Q ID' (the id is on stderr, "
                        + "or in -o json); without an ack within --visibility it goes back to the queue."},
        customSynopsis = "coordis [-u URL] queue pop [--wait D] [--lifo] [--reliable [--visibility D]] [-o json] Q")
final class PopCommand implements Callable<Integer> {
    @Option(names = {"-w", "--wait"}, paramLabel = "D", description = "Wait up to D for a message. Default: no wait.")
    Duration wait;

    @Option(names = "--lifo", description = "Take the newest message (from the left) instead of the oldest.")
    boolean lifo;

    @Option(names = "--reliable", description = "Hold the message until acked (at-least-once).")
    boolean reliable;

    @Option(names = "--visibility", paramLabel = "D", defaultValue = "5m",
            description = "With --reliable: how long the message stays held without an ack before it is "
                    + "given to others. Default: ${DEFAULT-VALUE}.")
    Duration visibility;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT",
            description = "raw (default): the payload alone; json: {\"payload\", \"id\", \"attempts\"}.")
    String output = "raw";

    @Mixin
    QueueTarget queue = new QueueTarget();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    PopCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        String name = queue.name();
        if (!output.equals("raw") && !output.equals("json")) {
            throw new ParameterException(spec.commandLine(), "-o must be raw or json, was '" + output + "'");
        }
        Duration w = wait == null ? Duration.ZERO : wait;
        if (w.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--wait must not be negative");
        }
        QueueOptions options = QueueCommand.options(spec, lifo, null);
        if (reliable) {
            try {
                options = options.withHeartbeatTtl(visibility).withSlots(1);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), "invalid --visibility: " + e.getMessage());
            }
        }
        Budget budget = Budget.of(w);
        try (Coordis coordis = Connections.open(List.of(queue.url()), spec, w)) {
            w = budget.left(); // what connecting left of the wait
            if (!reliable) {
                Optional<byte[]> got = coordis.queue(name, options).pop(w);
                if (got.isEmpty()) {
                    return ExitCodes.NO_SIGNAL;
                }
                print(got.get(), null, 0);
                return ExitCodes.OK;
            }
            // Not closed: closing would put the message back. Its heartbeat simply expires after --visibility.
            Consumer consumer = coordis.reliableQueue(name, options).consumer();
            Optional<Delivery> d = consumer.take(w);
            if (d.isEmpty()) {
                consumer.close();
                return ExitCodes.NO_SIGNAL;
            }
            print(d.get().payload(), d.get().id(), d.get().attempts());
            if (output.equals("raw")) {
                terminal.say("delivery " + d.get().id() + " (attempt " + d.get().attempts() + "); ack within "
                        + DurationText.format(visibility) + ": coordis queue ack " + name + " " + d.get().id());
            }
            return ExitCodes.OK;
        }
    }

    private void print(byte[] payload, String id, int attempts) {
        if (output.equals("raw")) {
            terminal.out().writeBytes(payload);
            terminal.out().write('\n');
            terminal.out().flush();
            return;
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        String text = utf8(payload);
        if (text != null) {
            doc.put("payload", text);
        } else {
            doc.put("payload_base64", Base64.getEncoder().encodeToString(payload));
        }
        if (id != null) {
            doc.put("id", id);
            doc.put("attempts", attempts);
        }
        terminal.output(Json.write(doc));
    }

    private static String utf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
