package io.coordis.cli.dashboard;

import io.coordis.Coordis;
import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.GlobalOptions;
import io.coordis.cli.support.LongRunning;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.UrlOption;
import io.coordis.cli.support.VersionProvider;
import io.coordis.cli.view.Cells;
import io.coordis.inspect.Glob;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;
import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code coordis dashboard [-u URL]... [--listen HOST:PORT] [--allow-remote] [--match GLOB] [--refresh D]}: the
 * view of {@code ls}, live, as a read-only web page ({@link Dashboard}) until Ctrl-C or SIGTERM, which end it with
 * status 0.
 */
@Command(name = "dashboard", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Serve a live, read-only web page of locks, elections, queues, signals, semaphores, rate "
                + "limiters and latches: what 'ls' lists, with TTL bars, each queue's depth over the last minutes and "
                + "each election's recent terms; a click on an object shows what 'inspect' shows. Runs until Ctrl-C.",
                "The same view as JSON at /api/state (the documents of 'ls -o json', plus the history). "
                        + "It listens on 127.0.0.1 only, unless --allow-remote is given."},
        footer = {"", "Exit status: 0 stopped by Ctrl-C or SIGTERM; 64 usage (a bad --listen, a non-loopback "
                + "address without --allow-remote, a bad glob, a port in use); 69 Redis unavailable; 77 "
                + "credentials refused."})
public final class DashboardCommand implements Callable<Integer>, LongRunning {
    static final String DEFAULT_LISTEN = "127.0.0.1:7380";

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = DEFAULT_LISTEN,
            description = "Where the page is served; port 0 picks a free port. Default: ${DEFAULT-VALUE}.")
    String listen;

    @Option(names = "--allow-remote", description = "Allow a --listen address other than loopback. The page has no "
            + "login: anyone who reaches it sees lock holders, hosts, queue figures and signal payloads.")
    boolean allowRemote;

    @Option(names = "--match", paramLabel = "GLOB", defaultValue = "*",
            description = "Only names matching this Redis glob, after --key-prefix if given. Default: *.")
    String match;

    @Option(names = "--refresh", paramLabel = "DURATION", defaultValue = "1s",
            description = "How often Redis is read and the page updated (100ms to 1m). Default: ${DEFAULT-VALUE}.")
    Duration refresh;

    @Mixin
    UrlOption urls = new UrlOption();

    @ParentCommand
    GlobalOptions parent;

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public DashboardCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (refresh.compareTo(Duration.ofMillis(100)) < 0 || refresh.compareTo(Duration.ofMinutes(1)) > 0) {
            throw usage("--refresh must be between 100ms and 1m, was " + Cells.time(Optional.of(refresh))
                    + ": 1s suits a page left open");
        }
        try {
            Glob.of(match);
        } catch (IllegalArgumentException e) {
            throw usage("--match: " + e.getMessage());
        }
        InetSocketAddress address = address(listen);
        if (!address.getAddress().isLoopbackAddress()) {
            if (!allowRemote) {
                throw usage("--listen " + listen + " is not a loopback address: the page has no login and shows "
                        + "lock holders, hosts and payloads to whoever reaches it. Listen on 127.0.0.1:PORT (and "
                        + "reach it through an SSH tunnel), or add --allow-remote to listen there anyway");
            }
            terminal.say("warning: listening on " + listen + " without a login: anyone who can reach this address "
                    + "sees what Redis holds under " + match);
        }
        CountDownLatch stop = new CountDownLatch(1);
        List<String> given = parent.urls(spec, urls);
        try (Coordis coordis = Connections.open(given, spec)) {
            String pattern = coordis.keyPrefix() + match;
            try (Snapshots snapshots = new Snapshots(coordis.inspector(), pattern, refresh, given).start();
                 Dashboard dashboard = start(address, snapshots, coordis, pattern)) {
                SignalHandler previousInt = handle("INT", stop);
                SignalHandler previousTerm = handle("TERM", stop);
                try {
                    terminal.output("coordis dashboard: " + dashboard.address());
                    terminal.say("showing " + pattern + " on " + String.join(", ",
                            given.stream().map(Snapshots::shown).toList()) + ", every "
                            + Cells.time(Optional.of(refresh)) + "; Ctrl-C to stop");
                    stop.await();
                } finally {
                    Signal.handle(new Signal("INT"), previousInt);
                    Signal.handle(new Signal("TERM"), previousTerm);
                }
            }
        }
        terminal.say("dashboard stopped");
        return ExitCodes.OK;
    }

    private Dashboard start(InetSocketAddress address, Snapshots snapshots, Coordis coordis, String pattern) {
        try {
            return Dashboard.start(address, snapshots, coordis.inspector(), Glob.of(pattern));
        } catch (UncheckedIOException e) {
            throw new CommandFailure(ExitCodes.USAGE, e.getMessage(), e);
        }
    }

    /** Ctrl-C and SIGTERM end the wait, so the server and the client close and the command exits with 0. */
    private static SignalHandler handle(String name, CountDownLatch stop) {
        return Signal.handle(new Signal(name), s -> stop.countDown());
    }

    /** {@code HOST:PORT}, {@code [IPv6]:PORT} or {@code :PORT} (loopback). */
    private InetSocketAddress address(String given) {
        int colon = given.lastIndexOf(':');
        if (colon < 0 || colon == given.length() - 1) {
            throw usage("--listen " + given + ": give HOST:PORT, e.g. " + DEFAULT_LISTEN + " (port 0 picks a free one)");
        }
        String host = given.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(given.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65_535) {
            throw usage("--listen " + given + ": the port must be a number from 0 to 65535, e.g. " + DEFAULT_LISTEN);
        }
        try {
            InetAddress ip = host.isEmpty() ? InetAddress.getLoopbackAddress() : InetAddress.getByName(host);
            return new InetSocketAddress(ip, port);
        } catch (UnknownHostException e) {
            throw usage("--listen " + given + ": unknown host '" + host + "'; give an address such as 127.0.0.1");
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
