package io.coordis.cli.queue;

import io.coordis.queue.QueueOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options of the commands that give messages back to a queue ({@code nack}, {@code requeue --stale}): at which
 * end they go back ({@code --lifo}), after how many failed deliveries a message is dead-lettered
 * ({@code --max-attempts}), and the queue itself ({@link QueueTarget}). The texts speak of one nacked message;
 * {@code requeue} gives its own under the keys {@code max-attempts} and {@code lifo}
 * ({@link io.coordis.cli.support.Descriptions}). A picocli mixin; not thread-safe, like the command it is part of.
 */
final class RedeliveryOptions {
    @Option(names = "--max-attempts", paramLabel = "N", descriptionKey = "max-attempts",
            description = "Dead-letter the message once it failed N times. Default: 5.")
    Integer maxAttempts;

    @Option(names = "--lifo", descriptionKey = "lifo", description = "The queue is consumed newest first "
            + "(pop --lifo): give the message back at the left end, where LIFO consumers take.")
    boolean lifo;

    @Mixin
    QueueTarget queue = new QueueTarget();

    /** The command these options are mixed into: it names the command in usage errors. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The queue the messages go back to, and its Redis. */
    QueueTarget queue() {
        return queue;
    }

    /** Whether either option was given. */
    boolean given() {
        return maxAttempts != null || lifo;
    }

    /**
     * The queue's options with these: LIFO order for {@code --lifo}, and {@code --max-attempts} when given (else the
     * queue's default, 5).
     *
     * @throws ParameterException naming {@code --max-attempts} when it is out of range
     */
    QueueOptions options() {
        QueueOptions options = QueueCommand.options(command, lifo, null);
        if (maxAttempts == null) {
            return options;
        }
        try {
            return options.withMaxAttempts(maxAttempts);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(command.commandLine(), "invalid --max-attempts: " + e.getMessage());
        }
    }
}
