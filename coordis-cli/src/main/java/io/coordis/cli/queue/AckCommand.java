package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code queue ack Q ID}. */
@Command(name = "ack", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Acknowledge the delivery ID of queue Q (from 'pop --reliable'): the message is done.")
final class AckCommand implements Callable<Integer> {
    @Parameters(index = "1", paramLabel = "ID", description = "The delivery id.")
    String id;

    @Mixin
    QueueTarget queue = new QueueTarget();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    AckCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        String name = queue.name();
        try (Coordis coordis = queue.connect()) {
            return QueueCommand.report(terminal, coordis.reliableQueue(name).ack(id), id);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
