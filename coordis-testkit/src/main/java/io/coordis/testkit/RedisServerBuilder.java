package io.coordis.testkit;

import io.coordis.redis.runner.ProcessSupport;
import io.coordis.redis.runner.RedisBinary;
import io.coordis.testkit.fault.NetworkNamespace;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Assumptions;

/**
 * Options for a {@link RedisServer}; obtain one with {@link RedisServer#builder()}. Each
 * {@link #start()} launches a new, independent server, so one builder can serve as a template for
 * several servers (as long as no fixed {@link #port(int)} is set).
 */
public final class RedisServerBuilder {

    RedisBinary binary;
    int port;
    boolean appendOnly;
    String appendFsync;
    String requirePass;
    boolean debugCommand;
    RedisServer replicaOf;
    TestCertificates tls;
    /** The TLS server's certificate and key when not the test CA's default server certificate. */
    TestCertificates.KeyPair tlsServerCertificate;
    boolean tlsAuthClients;
    /** Non-null: run in sentinel mode ({@code --sentinel}) with these config lines (tokens, unquoted). */
    List<String[]> sentinelLines;
    Duration startTimeout = Duration.ofSeconds(10);
    final List<String[]> aclUsers = new ArrayList<>();
    final List<String> args = new ArrayList<>();
    /** Non-null: the default user may run only these command rules; the test kit connects as {@link #ADMIN_USER}. */
    String defaultUserRules;
    /** The key and channel rules of the restricted default user: all, or those of the test run's prefix. */
    List<String> defaultUserPatterns = List.of("~*", "&*");
    /** The password of {@link #ADMIN_USER}, set with {@link #defaultUserRules}. */
    String adminPassword;
    /** The user the test kit's own connections log in as when the default user is restricted. */
    public static final String ADMIN_USER = "coordis-test-admin";
    NetworkNamespace namespace;

    RedisServerBuilder() {
    }

    /**
     * Starts the server inside {@code ns}, listening on the namespace's address only, so that
     * {@link NetworkNamespace#partition()} cuts it off from every client.
     *
     * @param ns the namespace to start in
     * @return this builder
     */
    public RedisServerBuilder namespace(NetworkNamespace ns) {
        this.namespace = Objects.requireNonNull(ns, "ns");
        return this;
    }

    /**
     * Runs this binary instead of {@link RedisBinary#resolve()}.
     *
     * @param binary the binary to run
     * @return this builder
     */
    public RedisServerBuilder binary(RedisBinary binary) {
        this.binary = Objects.requireNonNull(binary, "binary");
        return this;
    }

    /**
     * Listens on this fixed port instead of a free one (no retry on a different port if it is taken).
     *
     * @param port the port
     * @return this builder
     */
    public RedisServerBuilder port(int port) {
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in 1..65535, got " + port);
        }
        this.port = port;
        return this;
    }

    /**
     * {@code appendonly yes|no}; default no.
     *
     * @param appendOnly whether to keep an append-only file
     * @return this builder
     */
    public RedisServerBuilder appendOnly(boolean appendOnly) {
        this.appendOnly = appendOnly;
        return this;
    }

    /**
     * {@code appendfsync always|everysec|no}; only meaningful with {@link #appendOnly(boolean)}.
     *
     * @param policy {@code always}, {@code everysec} or {@code no}
     * @return this builder
     */
    public RedisServerBuilder appendFsync(String policy) {
        if (!List.of("always", "everysec", "no").contains(policy)) {
            throw new IllegalArgumentException("appendfsync must be always, everysec or no, got " + policy);
        }
        this.appendFsync = policy;
        return this;
    }

    /**
     * {@code requirepass}: the default user needs this password.
     *
     * @param password the password
     * @return this builder
     */
    public RedisServerBuilder requirePass(String password) {
        if (password == null || password.isEmpty()) {
            throw new IllegalArgumentException("requirepass password must not be empty");
        }
        this.requirePass = password;
        return this;
    }

    /**
     * Adds an ACL user enabled with a password: {@code user NAME on >PASSWORD RULES...}, e.g.
     * {@code aclUser("alice", "pw", "~*", "&*", "+@all")}. Needs Redis 6 or later.
     *
     * @param name     the user's name
     * @param password the user's password
     * @param rules    the user's ACL rules
     * @return this builder
     */
    public RedisServerBuilder aclUser(String name, String password, String... rules) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(password, "password");
        String[] entry = new String[rules.length + 2];
        entry[0] = name;
        entry[1] = password;
        System.arraycopy(rules, 0, entry, 2, rules.length);
        aclUsers.add(entry);
        return this;
    }

    /**
     * Restricts the default user (the one every client without credentials is) to {@code commandRules}, e.g.
     * {@code "-@all +get +set"}, on all keys and channels, and adds an administrator user with every right and a
     * random password, as which the test kit's own connections ({@link RedisServer#command(String...)},
     * start-up, shutdown) log in. Clients given {@link RedisServer#uri()} (which carries no credentials then)
     * therefore run with exactly those commands. Servers of one template share the administrator and
     * replicate as it, and sentinels of {@link SentinelGroup} monitor them as it. Not for clusters.
     *
     * @param commandRules the default user's command rules
     * @return this builder
     */
    public RedisServerBuilder restrictDefaultUser(String commandRules) {
        if (commandRules == null || commandRules.isBlank()) {
            throw new IllegalArgumentException("command rules for the default user must not be empty");
        }
        if (requirePass != null) {
            throw new IllegalArgumentException("a restricted default user cannot also have a requirepass password");
        }
        this.defaultUserRules = commandRules.trim();
        this.adminPassword = Long.toHexString(new SecureRandom().nextLong()) + "A1";
        return this;
    }

    /**
     * A copy of {@code template}, its default user restricted to {@link #leastPrivilegeRules()} when the
     * least-privilege pass is on and the template is plain (no password, ACL users, replication, sentinel or TLS),
     * and to the keys and channels under the run's prefix when it has one ({@link Prefixed}).
     */
    static RedisServerBuilder leastPrivileged(RedisServerBuilder template) {
        RedisServerBuilder copy = template.copy();
        String rules = leastPrivilegeRules();
        if (rules != null && copy.requirePass == null && copy.aclUsers.isEmpty() && copy.replicaOf == null
                && copy.sentinelLines == null && copy.tls == null && copy.defaultUserRules == null) {
            copy.restrictDefaultUser(rules);
            copy.defaultUserPatterns = Prefixed.aclPatterns();
        }
        return copy;
    }

    /** The environment variable that turns on the least-privilege test pass: {@code 1} or {@code true}. */
    public static final String LEAST_PRIVILEGE_ENV = "COORDIS_TEST_LEAST_PRIVILEGE";

    /**
     * The command rules of the default user that every standalone server and independent master of a
     * {@link RedisExtension} gets when the environment variable {@value #LEAST_PRIVILEGE_ENV} is {@code 1} or
     * {@code true}: the resource {@code /io/coordis/testkit/least-privilege.acl} (one line of rules);
     * {@code null} otherwise.
     *
     * @return the rules, or {@code null}
     */
    public static String leastPrivilegeRules() {
        String env = System.getenv(LEAST_PRIVILEGE_ENV);
        if (env == null || !(env.equals("1") || env.equalsIgnoreCase("true"))) {
            return null;
        }
        try (InputStream in = RedisServerBuilder.class.getResourceAsStream("least-privilege.acl")) {
            if (in == null) {
                throw new IllegalStateException("least-privilege.acl is missing from the test kit");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("#")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("least-privilege.acl has no rules"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code enable-debug-command yes} on Redis 7 and later; ignored on 6.x where DEBUG is always enabled.
     *
     * @return this builder
     */
    public RedisServerBuilder enableDebugCommand() {
        this.debugCommand = true;
        return this;
    }

    /**
     * Starts as a replica of {@code master} (using the master's requirepass as masterauth).
     *
     * @param master the master to replicate
     * @return this builder
     */
    public RedisServerBuilder replicaOf(RedisServer master) {
        this.replicaOf = Objects.requireNonNull(master, "master");
        return this;
    }

    /**
     * Serves TLS only: {@code tls-port} on the server's port and {@code port 0} (no plain TCP), with a
     * certificate for {@code 127.0.0.1}/{@code localhost} signed by the JVM-wide test CA
     * ({@link TestCertificates#get()}, generated on first use); clients need not present a certificate.
     * {@link RedisServer#uri()} then starts with {@code rediss://}, the CA file is
     * {@link RedisServer#tlsCaFile()}, and the test kit's own commands ({@code PING},
     * {@code SHUTDOWN}, {@link RedisServer#command(String...)}, {@link RespClient#connect(RedisServer)})
     * go over TLS too. Replicas of a TLS master replicate over TLS.
     *
     * <p>{@link #start()} throws {@link TlsUnsupportedException} if the binary was built without TLS.
     *
     * @return this builder
     */
    public RedisServerBuilder tls() {
        return tls(TestCertificates.get());
    }

    /**
     * {@link #tls()} presenting {@code certificate} (for example {@link TestCertificates#serverOfOtherCa()} or
     * {@link TestCertificates#serverForIpOnly()}) instead of the default server certificate. Client certificates
     * are still checked against the test CA.
     *
     * @param certificate the server's certificate and key
     * @return this builder
     */
    public RedisServerBuilder tlsServerCertificate(TestCertificates.KeyPair certificate) {
        this.tlsServerCertificate = Objects.requireNonNull(certificate, "certificate");
        return tls == null ? tls() : this;
    }

    /**
     * {@link #tls()} with {@code tls-auth-clients yes}: the server refuses clients that present no certificate, or
     * one not signed by the test CA ({@link TestCertificates#client()} is one it accepts). The test kit's own
     * connections present {@link TestCertificates#client()}.
     *
     * @return this builder
     */
    public RedisServerBuilder tlsAuthClients() {
        this.tlsAuthClients = true;
        if (tls == null) {
            tls();
        }
        tls.client(); // generated now, so the test kit's own connections present it
        return this;
    }

    /** {@link #tls()} with these certificates. */
    RedisServerBuilder tls(TestCertificates certificates) {
        this.tls = Objects.requireNonNull(certificates, "certificates");
        return this;
    }

    /**
     * How long {@link #start()} and {@link RedisServer#restart(Duration)} wait for PONG; default 10 s.
     *
     * @param timeout the longest wait for PONG
     * @return this builder
     */
    public RedisServerBuilder startTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("start timeout must be positive, got " + timeout);
        }
        this.startTimeout = timeout;
        return this;
    }

    /**
     * Extra command-line arguments appended after the config file, e.g.
     * {@code arg("--maxmemory", "10mb")}; they override the generated configuration.
     *
     * @param args the arguments
     * @return this builder
     */
    public RedisServerBuilder arg(String... args) {
        this.args.addAll(Arrays.asList(args));
        return this;
    }

    /**
     * Launches a new server and blocks until it answers PING (at most the start timeout). A free port
     * that turns out to be taken is retried with another port a few times.
     *
     * @return the running server; close it to stop
     * @throws IllegalStateException if it does not come up; the message holds the command line, the
     *                               configuration (passwords masked) and the tail of the log
     */
    public RedisServer start() {
        return new RedisServer(copy());
    }

    /**
     * {@link #start()} for a TLS server on a TLS-capable binary: when the chosen binary (the embedded one, say, with
     * {@code COORDIS_REDIS_EMBEDDED=1}) was built without TLS, retries with the {@code redis-server} on the
     * {@code PATH}. When no TLS-capable binary exists the test fails if the environment variable {@code CI} is
     * {@code true}, and is skipped (JUnit assumption, naming the reason) otherwise.
     *
     * @return the running server; close it to stop
     */
    public RedisServer startTls() {
        if (tls == null) {
            tls();
        }
        TlsUnsupportedException unsupported;
        try {
            return start();
        } catch (TlsUnsupportedException e) {
            unsupported = e;
        }
        Path onPath = ProcessSupport.findOnPath("redis-server");
        if (onPath != null && !onPath.equals(unsupported.binary().path())) {
            try {
                return copy().binary(RedisBinary.of(onPath)).start();
            } catch (TlsUnsupportedException e) {
                unsupported = e;
            }
        }
        if (ContinuousIntegration.running()) {
            throw unsupported;
        }
        Assumptions.abort("skipped outside CI: no TLS-capable redis-server: "
                + unsupported.getMessage().lines().findFirst().orElse(""));
        throw unsupported; // not reached
    }

    /**
     * An independent copy of these options.
     *
     * @return the copy
     */
    public RedisServerBuilder copy() {
        RedisServerBuilder b = new RedisServerBuilder();
        b.binary = binary;
        b.port = port;
        b.namespace = namespace;
        b.appendOnly = appendOnly;
        b.appendFsync = appendFsync;
        b.requirePass = requirePass;
        b.defaultUserRules = defaultUserRules;
        b.defaultUserPatterns = defaultUserPatterns;
        b.adminPassword = adminPassword;
        b.debugCommand = debugCommand;
        b.replicaOf = replicaOf;
        b.tls = tls;
        b.tlsServerCertificate = tlsServerCertificate;
        b.tlsAuthClients = tlsAuthClients;
        if (sentinelLines != null) {
            b.sentinelLines = new ArrayList<>();
            sentinelLines.forEach(l -> b.sentinelLines.add(l.clone()));
        }
        b.startTimeout = startTimeout;
        aclUsers.forEach(u -> b.aclUsers.add(u.clone()));
        b.args.addAll(args);
        return b;
    }

    /** The {@code redis.conf} text of a server of these options ({@link ServerConfig}). */
    String render(int port, Path dir, RedisBinary binary, boolean masked) {
        return ServerConfig.render(this, port, dir, binary, masked);
    }
}
