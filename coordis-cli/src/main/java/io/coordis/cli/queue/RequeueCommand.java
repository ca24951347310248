package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code queue requeue Q --stale|--dead}. */
@Command(name = "requeue", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"--stale: put back the messages of consumers whose heartbeat expired, and due delayed "
                + "retries. --dead: move dead letters back to the queue. Prints how many."},
        customSynopsis = "coordis [-u URL] queue requeue (--stale [--lifo] [--max-attempts N] | --dead [--max N]) Q")
final class RequeueCommand implements Callable<Integer> {
    @Option(names = "--stale", description = "Recover messages held by dead consumers.")
    boolean stale;

    @Option(names = "--dead", description = "Requeue dead letters.")
    boolean dead;

    @Option(names = "--max", paramLabel = "N", description = "With --dead: at most N. Default: all.")
    Integer max;

    @Mixin
    RedeliveryOptions redelivery = new RedeliveryOptions();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    RequeueCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code requeue} command, its redelivery options speaking of recovered messages and of --stale. */
    static CommandLine create(Terminal terminal) {
        return Descriptions.of(new RequeueCommand(terminal),
                "max-attempts", "With --stale: dead-letter a recovered message once it failed N times, as the "
                        + "queue's workers do (queue work --max-attempts). Default: 5.",
                "lifo", "With --stale: the queue is consumed newest first (pop --lifo); put recovered messages back "
                        + "at the left end, where LIFO consumers take next.");
    }

    @Override
    public Integer call() throws InterruptedException {
        String name = redelivery.queue().name();
        if (stale == dead) {
            throw new ParameterException(spec.commandLine(), "give exactly one of --stale and --dead");
        }
        if (max != null && (max < 1 || stale)) {
            throw new ParameterException(spec.commandLine(), "--max goes with --dead and must be at least 1");
        }
        if (redelivery.given() && !stale) {
            throw new ParameterException(spec.commandLine(), "--max-attempts and --lifo go with --stale");
        }
        QueueOptions options = redelivery.options();
        try (Coordis coordis = redelivery.queue().connect()) {
            ReliableQueue q = coordis.reliableQueue(name, options);
            long moved = 0;
            if (stale) {
                moved = q.sweep();
            } else {
                long limit = max == null ? Long.MAX_VALUE : max;
                while (moved < limit) {
                    int n = q.requeueDead((int) Math.min(10_000, limit - moved));
                    moved += n;
                    if (n == 0) {
                        break;
                    }
                }
            }
            terminal.output(Long.toString(moved));
        }
        return ExitCodes.OK;
    }
}
