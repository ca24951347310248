package io.coordis.cli;

import io.coordis.Urls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;

/** {@code coordis}: the options every subcommand shares (where Redis is, how much to show on failure). */
@Command(name = "coordis", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Distributed coordination on Redis: run a command while holding a lock or while leader of "
                + "an election, signal and wait, try the demo.",
        footer = {"", "Exit status: the command's own for 'lock' and 'elect'; 1 lock not acquired (-E), not "
                + "elected within --wait ('elect'), nobody leads ('leader'), or no signal within "
                + "--timeout ('wait'); 64 usage; "
                + "65 a key holds the wrong type; 69 Redis unavailable; 70 internal error; 75 lock or leadership "
                + "lost while the command ran; 77 credentials or permission refused."})
final class CoordisCommand implements Callable<Integer> {
    /**
     * The environment variable that gives the Redis URL when no {@code --url} is given; a
     * comma-separated list for Redlock.
     */
    static final String URL_ENV = "COORDIS_URL";
    static final String DEFAULT_URL = "redis://127.0.0.1:6379";
    /** A comma that starts another URL (one with a scheme), possibly surrounded by blanks. */
    private static final Pattern URL_SEPARATOR = Pattern.compile("\\s*,\\s*(?=[A-Za-z][A-Za-z0-9+.-]*://)");

    @Mixin
    RedisUrls urls = new RedisUrls();

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Show the stack trace of a failure.")
    boolean debug;

    /** Environment variables that give the TLS files when the options are not given. */
    static final String TLS_CA_ENV = "COORDIS_TLS_CA";
    static final String TLS_CERT_ENV = "COORDIS_TLS_CERT";
    static final String TLS_KEY_ENV = "COORDIS_TLS_KEY";

    @Option(names = "--tls-ca", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "For rediss:// URLs: trust the CA certificates in this PEM file instead of the JVM's trust "
                    + "store. Default: $" + TLS_CA_ENV + ".")
    java.nio.file.Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "For rediss:// URLs to servers with tls-auth-clients: present the client certificate (chain) "
                    + "in this PEM file; needs --tls-key. Default: $" + TLS_CERT_ENV + ".")
    java.nio.file.Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "The client certificate's private key: an unencrypted PKCS#8 PEM file "
                    + "(-----BEGIN PRIVATE KEY-----). Default: $" + TLS_KEY_ENV + ".")
    java.nio.file.Path tlsKey;

    /** The environment variable that gives the key prefix when {@code --key-prefix} is not given. */
    static final String KEY_PREFIX_ENV = "COORDIS_KEY_PREFIX";

    @Option(names = "--key-prefix", paramLabel = "PREFIX", scope = ScopeType.INHERIT,
            description = "Put PREFIX before every key and channel name, as applications sharing a Redis do "
                    + "(Coordis.Builder.keyPrefix): 'lock orders' with --key-prefix billing: takes the key "
                    + "billing:orders. ls and inspect look under the prefix only and show Redis names. "
                    + "Default: $" + KEY_PREFIX_ENV + ", else none.")
    String keyPrefix;

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
     * The Redis URLs to use: those given with {@code --url} (before or after the subcommand), else
     * {@code $COORDIS_URL}, else {@value #DEFAULT_URL}. Each may hold a comma-separated list. One URL is
     * one node; three or more are independent masters for Redlock.
     *
     * @throws ParameterException for exactly 2 URLs, or the same URL given twice
     */
    List<String> urls(CommandSpec caller, RedisUrls local) {
        List<String> given = given(local);
        if (given.isEmpty()) {
            String fromEnv = terminal.env().get(URL_ENV);
            given = fromEnv == null || fromEnv.isBlank() ? List.of(DEFAULT_URL) : split(fromEnv);
        }
        return checked(caller, given);
    }

    /** The URL given with {@code --url}, if any; for commands that run on one node only. */
    Optional<String> explicitUrl(CommandSpec caller, RedisUrls local) {
        List<String> given = given(local);
        if (given.size() > 1) {
            throw new ParameterException(caller.commandLine(), "got " + given.size() + " Redis URLs "
                    + shown(given) + ", but '" + caller.name() + "' runs on one Redis: give one --url");
        }
        return given.stream().findFirst();
    }

    /**
     * The one Redis URL for a command that runs on one node (signals): the one given with {@code --url},
     * else {@code $COORDIS_URL}, else {@value #DEFAULT_URL}.
     *
     * @throws ParameterException when that is more than one URL (a Redlock list, say)
     */
    String url(CommandSpec caller, RedisUrls local) {
        List<String> given = given(local);
        String from = "";
        if (given.isEmpty()) {
            String fromEnv = terminal.env().get(URL_ENV);
            given = fromEnv == null || fromEnv.isBlank() ? List.of(DEFAULT_URL) : split(fromEnv);
            from = " (from $" + URL_ENV + ")";
        }
        if (given.size() != 1) {
            throw new ParameterException(caller.commandLine(), "got " + given.size() + " Redis URLs " + shown(given)
                    + from + ", but '" + caller.name() + "' runs on one Redis: give one --url");
        }
        return given.get(0);
    }

    /**
     * A client builder for {@code urls} with the TLS files of {@code --tls-ca}, {@code --tls-cert} and
     * {@code --tls-key} (else {@code $COORDIS_TLS_CA}, {@code $COORDIS_TLS_CERT}, {@code $COORDIS_TLS_KEY}).
     *
     * @throws ParameterException naming the file and what to do when a file cannot be used, or only one of the
     *                            certificate and the key is given
     */
    io.coordis.Coordis.Builder builder(CommandSpec caller, List<String> urls) {
        io.coordis.Coordis.Builder b = io.coordis.Coordis.builder().urls(urls);
        java.nio.file.Path ca = tlsFile(tlsCa, TLS_CA_ENV);
        java.nio.file.Path cert = tlsFile(tlsCert, TLS_CERT_ENV);
        java.nio.file.Path key = tlsFile(tlsKey, TLS_KEY_ENV);
        if ((cert == null) != (key == null)) {
            throw new ParameterException(caller.commandLine(), cert == null
                    ? "--tls-key was given without --tls-cert: give the client certificate too (or $" + TLS_CERT_ENV + ")"
                    : "--tls-cert was given without --tls-key: give the certificate's private key too (or $"
                            + TLS_KEY_ENV + ")");
        }
        try {
            b.keyPrefix(keyPrefix());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(caller.commandLine(), "--key-prefix: " + e.getMessage());
        }
        try {
            if (ca != null) {
                b.trustedCertificates(ca);
            }
            if (cert != null) {
                b.clientCertificate(cert, key);
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(caller.commandLine(), e.getMessage());
        }
        return b;
    }

    /** The prefix of {@code --key-prefix}, else {@code $COORDIS_KEY_PREFIX}, else none (empty). */
    String keyPrefix() {
        if (keyPrefix != null) {
            return keyPrefix;
        }
        String fromEnv = terminal.env().get(KEY_PREFIX_ENV);
        return fromEnv == null ? "" : fromEnv;
    }

    private java.nio.file.Path tlsFile(java.nio.file.Path option, String env) {
        if (option != null) {
            return option;
        }
        String fromEnv = terminal.env().get(env);
        return fromEnv == null || fromEnv.isBlank() ? null : java.nio.file.Path.of(fromEnv.strip());
    }

    private List<String> given(RedisUrls local) {
        List<String> given = new ArrayList<>();
        for (String value : urls.given) {
            given.addAll(split(value));
        }
        for (String value : local.given) {
            given.addAll(split(value));
        }
        return given;
    }

    /**
     * Splits a comma-separated list of URLs. Only a comma followed by a scheme ({@code redis://}, ...)
     * separates two URLs, so a sentinel URL's own list ({@code redis-sentinel://h1:26379,h2:26379#m})
     * stays whole.
     */
    static List<String> split(String value) {
        if (value.isBlank()) {
            return List.of(value); // left for the client to refuse, naming the problem
        }
        List<String> urls = new ArrayList<>();
        for (String part : URL_SEPARATOR.split(value.strip(), -1)) {
            String url = part.strip();
            if (!url.isEmpty()) {
                urls.add(url);
            }
        }
        return urls;
    }

    private static List<String> checked(CommandSpec caller, List<String> urls) {
        if (urls.size() == 2) {
            throw new ParameterException(caller.commandLine(), "got 2 Redis URLs " + shown(urls)
                    + ": give one URL, or at least 3 independent masters for Redlock (5 is typical)");
        }
        Set<String> seen = new HashSet<>();
        for (String url : urls) {
            if (!seen.add(url)) {
                throw new ParameterException(caller.commandLine(), "Redis URL " + Urls.redact(url)
                        + " given twice: Redlock needs each of its independent masters once");
            }
        }
        return List.copyOf(urls);
    }

    private static List<String> shown(List<String> urls) {
        return urls.stream().map(Urls::redact).toList();
    }
}
