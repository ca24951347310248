package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.QueueOptions;
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

    @Mixin
    RedeliveryOptions redelivery = new RedeliveryOptions();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    NackCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        String name = redelivery.queue().name();
        QueueOptions options = redelivery.options();
        try (Coordis coordis = redelivery.queue().connect()) {
            ReliableQueue q = coordis.reliableQueue(name, options);
            return QueueCommand.report(terminal, q.nack(id, delay), id);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
