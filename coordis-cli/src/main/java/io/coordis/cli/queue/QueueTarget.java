package io.coordis.cli.queue;

import io.coordis.Coordis;
import io.coordis.cli.support.UrlOption;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * What every {@code queue} subcommand names first: the queue Q, and the Redis it lives on ({@code --url} given after
 * the subcommand, else the root's). A picocli mixin; not thread-safe, like the command it is part of.
 */
final class QueueTarget {
    @Parameters(index = "0", paramLabel = "Q", description = "The queue (the list's key).")
    String name;

    @Mixin
    UrlOption urls = new UrlOption();

    /** What this is mixed into: the subcommand, or a mixin of it ({@link #subcommand()}). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /**
     * The queue's name.
     *
     * @throws picocli.CommandLine.ParameterException when it is empty
     */
    String name() {
        return QueueCommand.checkedName(subcommand(), name);
    }

    /** The one Redis URL the queue is on. */
    String url() {
        return group().root.url(subcommand(), urls);
    }

    /** A client connected to the queue's Redis. */
    Coordis connect() {
        return group().connect(subcommand(), urls);
    }

    /**
     * The subcommand this is part of; its parent is {@code queue}. Held by another mixin
     * ({@link RedeliveryOptions}), this has that mixin for its mixee; every mixin of a command shares the command's
     * command line.
     */
    private CommandSpec subcommand() {
        return mixee.commandLine().getCommandSpec();
    }

    private QueueCommand group() {
        return (QueueCommand) subcommand().parent().userObject();
    }
}
