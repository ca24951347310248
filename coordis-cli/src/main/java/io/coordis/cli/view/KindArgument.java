package io.coordis.cli.view;

import io.coordis.inspect.ObjectKind;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** The KIND argument of {@code ls} and {@code inspect}: an {@link ObjectKind} by its singular or plural name. */
public final class KindArgument {
    private KindArgument() {
    }

    /**
     * The kind named {@code given}, by any name {@link ObjectKind#named} takes.
     *
     * @param plural whether the command names kinds in the plural ({@code ls}) or the singular ({@code inspect})
     * @throws ParameterException naming the accepted kinds
     */
    public static ObjectKind parse(String given, CommandSpec caller, boolean plural) {
        return ObjectKind.named(given).orElseThrow(() -> new ParameterException(caller.commandLine(),
                "unknown kind '" + given + "': use " + (plural
                        ? "locks, elections, queues, signals or semaphores (also rate-limiters or latches)"
                        : "lock, election, queue, signal or semaphore (also rate-limiter or latch)")));
    }
}
