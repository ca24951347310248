package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.Order;
import io.coordis.queue.Outcome;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code queue nack Q ID [--delay D]}. */
@Command(name = "nack", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Give the delivery ID of queue Q back for redelivery (dead letter after --max-attempts "
                + "failed deliveries).")
final class NackCommand implements Callable<Integer> {
    @Parameters(index = "1", paramLabel = "ID", description = "The delivery id.")
    String id;

    @Option(names = "--delay", paramLabel = "D", description = "Redeliver only after D. Default: at once.")
    Duration delay = Duration.ZERO;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "5",
            description = "Dead-letter the message once it failed N times. Default: ${DEFAULT-VALUE}.")
    int maxAttempts;

    @Option(names = "--lifo", description = "The queue is consumed newest first (pop --lifo): give the message "
            + "back at the left end, where LIFO consumers take.")
    boolean lifo;

    @Mixin
    QueueTarget queue = new QueueTarget();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    NackCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        String name = queue.name();
        try (Coordis coordis = queue.connect()) {
            ReliableQueue q = coordis.reliableQueue(name, QueueCommand.options(spec, lifo, null).withMaxAttempts(maxAttempts));
            return QueueCommand.report(terminal, q.nack(id, delay), id);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
