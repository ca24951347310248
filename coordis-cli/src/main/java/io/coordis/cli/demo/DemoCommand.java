package io.coordis.cli.demo;

import io.coordis.Urls;
import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.Connections;
import io.coordis.cli.support.Descriptions;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.ReportOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.redis.runner.RedisProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code coordis demo}: a tour of every primitive against one Redis, in well under a minute, with narration on
 * stderr: workers contending for a lock with fencing numbers; a leader that dies and a successor with a higher
 * term; a broadcast and a unicast signal; a reliable queue whose consumer dies mid-message and a poison
 * message that ends in the dead letters; then the {@code ls} tables (stdout; with {@code -o json} as JSON
 * documents, one per table and line) and commands to paste into two terminals (stdout; with {@code -o json}
 * stderr, so that stdout is only JSON). Starts a real redis-server of its own unless {@code --url} is given;
 * with a URL it touches only keys named {@code demo:*} and removes them at the end.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"A tour of locks, leader election, signals and reliable queues, narrated on stderr, in well "
                + "under a minute; then the 'ls' tables and commands to try in two terminals, on stdout.",
                "Starts its own redis-server (from PATH, else one shipped in the jar) unless --url is given; "
                        + "$COORDIS_URL is not used, so the demo never writes to a Redis by surprise.",
                "With --url it only touches keys named demo:* and removes them at the end.",
                "With -o json, stdout holds only the 'ls' tables as JSON (one document per table and line, as "
                        + "'ls -o json' prints them); the commands to try go to stderr with the narration."},
        footer = {"", "Exit status: 0 the tour ran; 64 usage; 69 Redis unavailable or not startable; "
                + "70 Coordis did not behave as narrated (a bug: please report it)."})
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--workers", paramLabel = "N", defaultValue = "4",
            description = "Workers contending for the lock, each with its own client (1-32). Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3",
            description = "Times each worker takes the lock (1-100). Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Option(names = "--hold", paramLabel = "D", defaultValue = "100ms",
            description = "How long a worker keeps the lock each time (at most 10s). Default: ${DEFAULT-VALUE}.")
    Duration hold;

    @Option(names = "--keep", description = "Keep the redis-server the demo started running after the tour, for "
            + "the commands it prints, until Enter, end of input or Ctrl-C.")
    boolean keep;

    @Mixin
    ReportOptions report = new ReportOptions();

    private final Terminal terminal;

    public DemoCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    /** The {@code demo} command, saying what its {@code -o} formats print. */
    public static CommandLine create(Terminal terminal) {
        return Descriptions.of(new DemoCommand(terminal), "output",
                "text (tables) or json (the tables as JSON documents, one per line). Default: text.");
    }

    @Override
    public Integer call() throws InterruptedException {
        if (workers < 1 || workers > 32) {
            throw report.usage("--workers must be in 1..32, was " + workers);
        }
        if (rounds < 1 || rounds > 100) {
            throw report.usage("--rounds must be in 1..100, was " + rounds);
        }
        if (hold.isNegative() || hold.compareTo(Duration.ofSeconds(10)) > 0) {
            throw report.usage("--hold must be between 0 and 10s");
        }
        boolean json = report.json();
        Optional<String> url = report.urls().explicit();
        if (url.isPresent()) {
            if (keep) {
                throw report.usage("--keep keeps the redis-server the demo starts; with --url there is none to keep");
            }
            terminal.err().println("using Redis at " + Urls.redact(url.get()) + " (only keys named demo:*)");
            Connections.open(url.get(), report.spec()).close();
            try {
                tour(url.get(), json);
            } finally {
                DemoKeys.remove(url.get(), terminal.err());
            }
            return ExitCodes.OK;
        }
        long started = System.nanoTime();
        try (RedisProcess server = startServer()) {
            terminal.err().println("started redis-server " + server.version() + " on " + server.address()
                    + " (" + server.binary().path() + ")");
            tour(server.uri(), json);
            terminal.err().printf("%nthe tour took %.1f s%n", (System.nanoTime() - started) / 1e9);
            if (keep) {
                terminal.err().println("redis-server keeps running on " + server.address()
                        + " for the commands above; watch it in a browser with '" + launcher() + " -u "
                        + Urls.redact(server.uri()) + " dashboard'; press Enter (or Ctrl-C) to stop it");
                awaitEnter();
            }
            server.stop();
            terminal.err().println("stopped redis-server on " + server.address()
                    + (keep ? "" : "; run 'demo --keep' to keep it running for the commands above"));
            return ExitCodes.OK;
        }
    }

    private void tour(String url, boolean json) throws InterruptedException {
        PrintStream say = terminal.err();
        say.println();
        say.println("== Locks: " + workers + " workers, each with its own Redis client, take turns at '"
                + PrinterContest.LOCK + "'; every grant carries a higher fencing number");
        List<Long> tokens = new PrinterContest(url, workers, rounds, hold, say).run();
        for (int i = 1; i < tokens.size(); i++) {
            if (tokens.get(i) <= tokens.get(i - 1)) {
                throw new CommandFailure(ExitCodes.SOFTWARE, "fencing tokens did not increase: " + tokens);
            }
        }
        say.println(tokens.size() + " acquisitions by " + workers + " workers, one holder at a time; "
                + "fencing tokens strictly increased from " + tokens.get(0) + " to " + tokens.get(tokens.size() - 1));
        List<String> tables;
        try (DemoTour tour = new DemoTour(url, say)) {
            tables = tour.run(json);
        }
        terminal.output(String.join("\n", tables));
        if (json) {
            say.println();
            say.println(pasteCommands(url)); // stdout holds only JSON
        } else {
            terminal.output("");
            terminal.output(pasteCommands(url));
        }
    }

    /** Commands for two terminals against the same server, with this program's own way of starting. */
    static String pasteCommands(String url) {
        String c = launcher() + " -u " + Urls.redact(url);
        return String.join("\n",
                "Try it yourself in two terminals, against the same Redis:",
                "  terminal 1:  " + c + " lock demo:printer -- sh -c 'echo \"token $COORDIS_LOCK_TOKEN\"; sleep 15'",
                "  terminal 2:  " + c + " lock demo:printer -w 30s -- sh -c 'echo \"token $COORDIS_LOCK_TOKEN\"'",
                "  terminal 1:  " + c + " wait demo:deploy",
                "  terminal 2:  " + c + " signal demo:deploy v43",
                "  terminal 1:  " + c + " queue work demo:jobs -- cat",
                "  terminal 2:  " + c + " queue push demo:jobs 'resize photo-3'",
                "  terminal 1:  " + c + " elect demo:leader --ttl 5s -- sleep 30",
                "  terminal 2:  " + c + " leader demo:leader",
                "  either:      " + c + " ls --match 'demo:*'",
                "  a browser:   " + c + " dashboard --match 'demo:*'   (then open the address it prints)");
    }

    /** {@code java -jar /path/coordis.jar} when running from the jar, else {@code coordis}. */
    private static String launcher() {
        try {
            URL where = DemoCommand.class.getProtectionDomain().getCodeSource().getLocation();
            Path path = Path.of(where.toURI());
            if (path.toString().endsWith(".jar")) {
                return "java -jar " + path;
            }
        } catch (Exception e) {
            // fall through
        }
        return "coordis";
    }

    private void awaitEnter() {
        try {
            terminal.in().read();
        } catch (IOException e) {
            // end of input: stop
        }
    }

    private static RedisProcess startServer() {
        try {
            return RedisProcess.builder().start();
        } catch (RuntimeException e) {
            throw new CommandFailure(ExitCodes.UNAVAILABLE, "cannot start an embedded redis-server: "
                    + e.getMessage() + "\n(give --url to use a running Redis instead)", e);
        }
    }
}
