package io.coordis.cli.support;

import io.coordis.Coordis;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import java.time.Duration;
import java.util.List;

/** Opens Coordis clients for commands, turning a malformed URL into a usage error. */
public final class Connections {
    private Connections() {
    }

    /** A builder for {@code urls} with the TLS options of the {@code coordis} command {@code caller} belongs to. */
    private static Coordis.Builder builder(CommandSpec caller, List<String> urls) {
        Object root = caller.root().userObject();
        if (root instanceof GlobalOptions coordis) {
            return coordis.builder(caller, urls);
        }
        return Coordis.builder().urls(urls);
    }

    /**
     * @throws ParameterException when the URL is malformed (the message never repeats a password)
     * @throws io.coordis.CoordisException when Redis is unreachable or refuses the credentials
     */
    public static Coordis open(String url, CommandSpec caller) {
        return open(List.of(url), caller);
    }

    /**
     * Connects to the master at {@code url}; signals also listen on {@code replicaUrls} (connected in the
     * background, so a replica that is down does not fail this call).
     *
     * @throws ParameterException when a URL is malformed
     * @throws io.coordis.CoordisException when the master is unreachable or refuses the credentials
     */
    public static Coordis open(String url, List<String> replicaUrls, CommandSpec caller) {
        try {
            return builder(caller, List.of(url)).replicaUrls(replicaUrls).connect();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(caller.commandLine(), e.getMessage());
        }
    }

    /**
     * One URL: connects to that node, failing if it is unreachable. Three or more: a Redlock client over
     * those independent masters, which connects to each in the background (nodes that are down show up
     * in the votes of the first acquire).
     *
     * @throws ParameterException when a URL is malformed, or 2 are given
     * @throws io.coordis.CoordisException when the one node is unreachable or refuses the credentials
     */
    public static Coordis open(List<String> urls, CommandSpec caller) {
        try {
            return builder(caller, urls).connect();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(caller.commandLine(), e.getMessage());
        }
    }

    /**
     * As {@link #open(List, CommandSpec)}, riding out Redis being down or restarting for up to {@code wait} (zero:
     * not at all).
     *
     * @throws InterruptedException when interrupted between two tries
     */
    public static Coordis open(List<String> urls, CommandSpec caller, Duration wait) throws InterruptedException {
        if (wait.isZero()) {
            return open(urls, caller);
        }
        try {
            return builder(caller, urls).connect(wait);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(caller.commandLine(), e.getMessage());
        }
    }

    /**
     * How long a command that waits {@code wait} ({@code null}: as long as it takes) may take to connect: all of it
     * when a wait was given; none without one, so that a URL where nothing listens (more often a mistake than an
     * outage) is reported at once rather than waited for forever. Once connected, the command's wait rides out
     * outages either way.
     */
    public static Duration connectWithin(Duration wait) {
        return wait == null ? Duration.ZERO : wait;
    }
}
