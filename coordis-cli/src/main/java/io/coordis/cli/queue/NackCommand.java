package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.ReliableQueue;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.time.Duration;
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
