package io.coordis.cli.support;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code -u/--url} option: where Redis is. Mixed into {@code coordis} and into each subcommand, so it may come
 * before or after the subcommand's name; a subcommand asks it for its URLs, which combine both places, else
 * {@code $COORDIS_URL}, else the default ({@link GlobalOptions#urls(CommandSpec, UrlOption)}). It answers for the
 * command it is part of, also when it sits in a mixin of that command ({@link ReportOptions}). A picocli mixin; not
 * thread-safe, like the command it is part of.
 */
public final class UrlOption {
    @Option(names = {"-u", "--url"}, paramLabel = "URL",
            description = "Redis URL: redis://[user:password@]host:port[/db], rediss://... (TLS) or "
                    + "redis-sentinel://host:port#master or redis-cluster://host:port[,host:port...] "
                    + "(Redis Cluster). Give it 3 or more times (or a comma-separated list) "
                    + "for Redlock over independent masters. Default: $" + GlobalOptions.URL_ENV
                    + " (one URL or a comma-separated list), else " + GlobalOptions.DEFAULT_URL
                    + " (demo: a redis-server of its own).")
    public List<String> given = new ArrayList<>();

    /** What this option is mixed into: the command, or a mixin of the command ({@link #command()}). */
    @Spec(Spec.Target.MIXEE)
    CommandSpec mixee;

    /**
     * The Redis URLs to use: one node, or three and more Redlock masters
     * ({@link GlobalOptions#urls(CommandSpec, UrlOption)}).
     *
     * @throws ParameterException for exactly 2 URLs, or the same URL given twice
     */
    public List<String> all() {
        return root().urls(command(), this);
    }

    /**
     * The one Redis URL of a command that runs on one node ({@link GlobalOptions#url(CommandSpec, UrlOption)}).
     *
     * @throws ParameterException when that is more than one URL
     */
    public String one() {
        return root().url(command(), this);
    }

    /**
     * The URL given with {@code --url}, before or after the subcommand, if any
     * ({@link GlobalOptions#explicitUrl(CommandSpec, UrlOption)}).
     *
     * @throws ParameterException when more than one was given
     */
    public Optional<String> explicit() {
        return root().explicitUrl(command(), this);
    }

    /**
     * The command this option is part of: it names the command in usage errors. A mixin held by another mixin has that
     * mixin for its mixee; every mixin of a command shares the command's command line.
     */
    private CommandSpec command() {
        return mixee.commandLine().getCommandSpec();
    }

    /** The options of {@code coordis}, which the subcommand this is part of belongs to. */
    private GlobalOptions root() {
        return (GlobalOptions) command().root().userObject();
    }
}
