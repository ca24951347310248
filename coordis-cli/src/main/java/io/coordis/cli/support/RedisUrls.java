package io.coordis.cli.support;

import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/**
 * The {@code -u/--url} option, mixed into {@code coordis} and each subcommand so it may come before or
 * after the subcommand's name; {@link GlobalOptions#urls} combines both places.
 */
public final class RedisUrls {
    @Option(names = {"-u", "--url"}, paramLabel = "URL",
            description = "Redis URL: redis://[user:password@]host:port[/db], rediss://... (TLS) or "
                    + "redis-sentinel://host:port#master or redis-cluster://host:port[,host:port...] "
                    + "(Redis Cluster). Give it 3 or more times (or a comma-separated list) "
                    + "for Redlock over independent masters. Default: $" + GlobalOptions.URL_ENV
                    + " (one URL or a comma-separated list), else " + GlobalOptions.DEFAULT_URL
                    + " (demo: a redis-server of its own).")
    public List<String> given = new ArrayList<>();
}
