package io.coordis.cli;

import io.coordis.internal.redis.Uris;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code coordis}: the options every subcommand shares (where Redis is, how much to show on failure). */
@Command(name = "coordis", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Distributed coordination on Redis: run a command while holding a lock, try the demo.",
        footer = {"", "Exit status: the command's own for 'lock'; 1 lock not acquired (-E); 64 usage; "
                + "65 a key holds the wrong type; 69 Redis unavailable; 70 internal error; 75 lock lost while "
                + "the command ran; 77 credentials or permission refused."})
final class CoordisCommand implements Callable<Integer> {
    /** The environment variable that gives the Redis URL when no {@code --url} is given. */
    static final String URL_ENV = "COORDIS_URL";
    static final String DEFAULT_URL = "redis://127.0.0.1:6379";

    @Mixin
    RedisUrls urls = new RedisUrls();

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Show the stack trace of a failure.")
    boolean debug;

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    CoordisCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() {
        throw new ParameterException(spec.commandLine(), "missing command: use one of "
                + String.join(", ", spec.subcommands().keySet()));
    }

    /**
     * The one Redis URL to use: the {@code --url} given (before or after the subcommand), else
     * {@code $COORDIS_URL}, else {@value #DEFAULT_URL}.
     *
     * @throws ParameterException when several URLs are given (multi-node locking is not available yet)
     */
    String url(CommandSpec caller, RedisUrls local) {
        return explicitUrl(caller, local).orElseGet(() -> {
            String fromEnv = terminal.env().get(URL_ENV);
            return fromEnv == null || fromEnv.isBlank() ? DEFAULT_URL : fromEnv.strip();
        });
    }

    /** The URL given with {@code --url}, if any; same check as {@link #url}. */
    Optional<String> explicitUrl(CommandSpec caller, RedisUrls local) {
        List<String> given = new ArrayList<>(urls.given);
        given.addAll(local.given);
        if (given.size() > 1) {
            List<String> shown = given.stream().map(Uris::redact).toList();
            throw new ParameterException(caller.commandLine(), "got " + given.size() + " Redis URLs " + shown
                    + ", but multi-node locking (Redlock) is not available yet: give one --url");
        }
        return given.stream().findFirst();
    }
}
