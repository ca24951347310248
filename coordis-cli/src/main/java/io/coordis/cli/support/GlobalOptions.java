package io.coordis.cli.support;

import io.coordis.Coordis;
import io.coordis.Urls;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The options every {@code coordis} subcommand shares, given before or after the subcommand: where Redis is (URLs,
 * TLS files, key prefix) and how much to show on failure; and the clients they describe. A subcommand reaches them as
 * its parent command. The clients of a short command share small Lettuce resources ({@link CommandResources}), which
 * {@link #close()} shuts down once the command is done. Not thread-safe: picocli fills the fields while parsing, the
 * command reads them afterwards.
 */
public class GlobalOptions implements AutoCloseable {
    /**
     * The environment variable that gives the Redis URL when no {@code --url} is given; a
     * comma-separated list for Redlock.
     */
    public static final String URL_ENV = "COORDIS_URL";
    public static final String DEFAULT_URL = "redis://127.0.0.1:6379";
    /** A comma that starts another URL (one with a scheme), possibly surrounded by blanks. */
    private static final Pattern URL_SEPARATOR = Pattern.compile("\\s*,\\s*(?=[A-Za-z][A-Za-z0-9+.-]*://)");

    @Mixin
    UrlOption urls = new UrlOption();

    @Option(names = "--debug", scope = ScopeType.INHERIT, description = "Show the stack trace of a failure.")
    boolean debug;

    /** Environment variables that give the TLS files when the options are not given. */
    public static final String TLS_CA_ENV = "COORDIS_TLS_CA";
    public static final String TLS_CERT_ENV = "COORDIS_TLS_CERT";
    public static final String TLS_KEY_ENV = "COORDIS_TLS_KEY";

    @Option(names = "--tls-ca", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "For rediss:// URLs: trust the CA certificates in this PEM file instead of the JVM's trust "
                    + "store. Default: $" + TLS_CA_ENV + ".")
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "For rediss:// URLs to servers with tls-auth-clients: present the client certificate (chain) "
                    + "in this PEM file; needs --tls-key. Default: $" + TLS_CERT_ENV + ".")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "The client certificate's private key: an unencrypted PKCS#8 PEM file "
                    + "(-----BEGIN PRIVATE KEY-----). Default: $" + TLS_KEY_ENV + ".")
    Path tlsKey;

    /** The environment variable that gives the key prefix when {@code --key-prefix} is not given. */
    public static final String KEY_PREFIX_ENV = "COORDIS_KEY_PREFIX";

    @Option(names = "--key-prefix", paramLabel = "PREFIX", scope = ScopeType.INHERIT,
            description = "Put PREFIX before every key and channel name, as applications sharing a Redis do "
                    + "(Coordis.Builder.keyPrefix): 'lock orders' with --key-prefix billing: takes the key "
                    + "billing:orders. ls and inspect look under the prefix only and show Redis names. "
                    + "Default: $" + KEY_PREFIX_ENV + ", else none.")
    String keyPrefix;

    private final Terminal terminal;
    private final CommandResources resources = new CommandResources();

    protected GlobalOptions(Terminal terminal) {
        this.terminal = terminal;
    }

    /**
     * The Redis URLs to use: those given with {@code --url} (before or after the subcommand), else
     * {@code $COORDIS_URL}, else {@value #DEFAULT_URL}. Each may hold a comma-separated list. One URL is
     * one node; three or more are independent masters for Redlock.
     *
     * @throws ParameterException for exactly 2 URLs, or the same URL given twice
     */
    public List<String> urls(CommandSpec caller, UrlOption local) {
        List<String> given = given(local);
        if (given.isEmpty()) {
            String fromEnv = terminal.env().get(URL_ENV);
            given = fromEnv == null || fromEnv.isBlank() ? List.of(DEFAULT_URL) : split(fromEnv);
        }
        return checked(caller, given);
    }

    /** The URL given with {@code --url}, if any; for commands that run on one node only. */
    public Optional<String> explicitUrl(CommandSpec caller, UrlOption local) {
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
    public String url(CommandSpec caller, UrlOption local) {
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
     * {@code --tls-key} (else {@code $COORDIS_TLS_CA}, {@code $COORDIS_TLS_CERT}, {@code $COORDIS_TLS_KEY}); unless
     * {@code caller} is {@link LongRunning}, on the small resources the command's clients share.
     *
     * @throws ParameterException naming the file and what to do when a file cannot be used, or only one of the
     *                            certificate and the key is given
     */
    public Coordis.Builder builder(CommandSpec caller, List<String> urls) {
        Coordis.Builder b = Coordis.builder().urls(urls);
        if (!(caller.userObject() instanceof LongRunning)) {
            b.clientResources(resources.get());
        }
        Path ca = tlsFile(tlsCa, TLS_CA_ENV);
        Path cert = tlsFile(tlsCert, TLS_CERT_ENV);
        Path key = tlsFile(tlsKey, TLS_KEY_ENV);
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

    /** Shuts down the Lettuce resources that the clients of {@link #builder} shared, if any; after those clients. */
    @Override
    public void close() {
        resources.close();
    }

    /** The prefix of {@code --key-prefix}, else {@code $COORDIS_KEY_PREFIX}, else none (empty). */
    public String keyPrefix() {
        if (keyPrefix != null) {
            return keyPrefix;
        }
        String fromEnv = terminal.env().get(KEY_PREFIX_ENV);
        return fromEnv == null ? "" : fromEnv;
    }

    private Path tlsFile(Path option, String env) {
        if (option != null) {
            return option;
        }
        String fromEnv = terminal.env().get(env);
        return fromEnv == null || fromEnv.isBlank() ? null : Path.of(fromEnv.strip());
    }

    private List<String> given(UrlOption local) {
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
    public static List<String> split(String value) {
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
