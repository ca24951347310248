package io.coordis.cli;

import io.coordis.internal.redis.Uris;
import io.coordis.testkit.RedisServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * {@code coordis demo}: a few workers, each with its own Coordis client, take turns at one lock and show
 * that fencing tokens strictly increase. Starts a real redis-server of its own unless {@code --url} is
 * given, and stops it at the end.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Show workers, each with its own Redis client, taking turns at the lock '"
                + PrinterContest.LOCK + "'.",
                "Checks that one holds it at a time and that fencing tokens strictly increase.",
                "Starts its own redis-server (from PATH, else one shipped in the jar) unless --url is given;",
                "$COORDIS_URL is not used, so the demo never writes to a Redis by surprise."})
final class DemoCommand implements Callable<Integer> {

    @Option(names = "--workers", paramLabel = "N", defaultValue = "4",
            description = "Competing workers, each with its own client (1-32). Default: ${DEFAULT-VALUE}.")
    int workers;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3",
            description = "Times each worker takes the lock (1-100). Default: ${DEFAULT-VALUE}.")
    int rounds;

    @Option(names = "--hold", paramLabel = "D", defaultValue = "100ms",
            description = "How long a worker keeps the lock each time (at most 10s). Default: ${DEFAULT-VALUE}.")
    Duration hold;

    @Mixin
    RedisUrls urls = new RedisUrls();

    @ParentCommand
    CoordisCommand parent;

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    DemoCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        if (workers < 1 || workers > 32) {
            throw usage("--workers must be in 1..32, was " + workers);
        }
        if (rounds < 1 || rounds > 100) {
            throw usage("--rounds must be in 1..100, was " + rounds);
        }
        if (hold.isNegative() || hold.compareTo(Duration.ofSeconds(10)) > 0) {
            throw usage("--hold must be between 0 and 10s");
        }
        Optional<String> url = parent.explicitUrl(spec, urls);
        if (url.isPresent()) {
            terminal.out().println("using Redis at " + Uris.redact(url.get()));
            Connections.open(url.get(), spec).close();
            return contest(url.get());
        }
        try (RedisServer server = startServer()) {
            terminal.out().println("started redis-server " + server.version() + " on " + server.address()
                    + " (" + server.binary().path() + ")");
            int status = contest(server.uri());
            server.stop();
            terminal.out().println("stopped redis-server on " + server.address());
            return status;
        }
    }

    private int contest(String url) throws InterruptedException {
        List<Long> tokens = new PrinterContest(url, workers, rounds, hold, terminal.out()).run();
        for (int i = 1; i < tokens.size(); i++) {
            if (tokens.get(i) <= tokens.get(i - 1)) {
                throw new CommandFailure(ExitCodes.SOFTWARE, "fencing tokens did not increase: " + tokens);
            }
        }
        terminal.out().println(tokens.size() + " acquisitions by " + workers + " workers, one holder at a time; "
                + "fencing tokens strictly increased from " + tokens.get(0) + " to " + tokens.get(tokens.size() - 1));
        return ExitCodes.OK;
    }

    private static RedisServer startServer() {
        try {
            return RedisServer.builder().start();
        } catch (RuntimeException e) {
            throw new CommandFailure(ExitCodes.UNAVAILABLE, "cannot start an embedded redis-server: "
                    + e.getMessage() + "\n(give --url to use a running Redis instead)", e);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
