package io.coordis.testkit;

import io.coordis.redis.runner.ProcessSupport;
import io.coordis.redis.runner.RedisBinary;
import io.coordis.redis.runner.RedisProcess;
import io.coordis.redis.runner.RedisProcessBuilder;
import io.coordis.redis.runner.RedisStartException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A real {@code redis-server} running as a child process of this JVM on a loopback port, with its
 * own temporary directory (config file, log file, RDB/AOF files).
 *
 * <p>The server is never daemonized, binds only {@code 127.0.0.1}, and by default persists nothing
 * ({@code save ""}, {@code appendonly no}). The configuration is written to {@code redis.conf} in
 * the server directory, so passwords do not appear in the process list. Every server is killed by a
 * JVM shutdown hook if still running when the JVM exits. The process is the runner's {@link RedisProcess}; this
 * class adds the test kit's options (passwords, ACL users, TLS, replication, sentinel mode, a network namespace),
 * checks that the process it started is the one answering, and administers the server.
 *
 * <p>Methods that change the process state are synchronized; the accessors are safe from any thread.
 */
public final class RedisServer extends LocalProcess {

    /** The only interface servers bind to. */
    public static final String HOST = RedisProcess.HOST;

    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(5);

    private final RedisServerBuilder config;
    private final ServerAdmin admin;
    private final RedisBinary binary;
    private final RedisProcess process;

    RedisServer(RedisServerBuilder config) {
        this.config = config;
        this.admin = new ServerAdmin(config);
        this.binary = config.binary != null ? config.binary : RedisBinary.resolve();
        RedisProcessBuilder process = RedisProcess.builder()
                .binary(binary)
                .host(config.namespace != null ? config.namespace.address() : HOST)
                .startTimeout(config.startTimeout)
                .config((port, dir, masked) -> ServerConfig.render(config, port, dir, binary, masked))
                .probe(admin::answers)
                .shutdown(server -> admin.shutdown(server.host(), server.port(), binary))
                .launcher(command -> config.namespace != null ? config.namespace.wrap(command) : command);
        if (config.port != 0) {
            process.port(config.port);
        }
        if (config.sentinelLines != null) {
            process.arg("--sentinel");
        }
        process.arg(config.args.toArray(new String[0]));
        this.process = start(process);
    }

    @Override
    RedisProcess process() {
        return process;
    }

    /**
     * A builder with the defaults described in the class documentation.
     *
     * @return a new builder
     */
    public static RedisServerBuilder builder() {
        return new RedisServerBuilder();
    }

    /**
     * Starts a server with default options; blocks until it answers PING (at most 10 s).
     *
     * @return the running server; close it to stop
     */
    public static RedisServer start() {
        return builder().start();
    }

    /**
     * {@code redis://127.0.0.1:PORT}, or {@code redis://:PASSWORD@127.0.0.1:PORT} with requirepass;
     * the scheme is {@code rediss} for a {@link RedisServerBuilder#tls() TLS} server.
     *
     * @return the URI
     */
    public String uri() {
        String scheme = isTls() ? "rediss://" : "redis://";
        return config.requirePass == null
                ? scheme + address()
                : scheme + ":" + percentEncode(config.requirePass) + "@" + address();
    }

    /**
     * True if the server was built with {@link RedisServerBuilder#tls()}: it accepts TLS connections only.
     *
     * @return {@code true} for a TLS server
     */
    public boolean isTls() {
        return config.tls != null;
    }

    /**
     * For a TLS server, the PEM file of the CA that signed its certificate (what clients must trust).
     *
     * @return the CA file, or empty for a server without TLS
     */
    public Optional<Path> tlsCaFile() {
        return isTls() ? Optional.of(config.tls.caFile()) : Optional.empty();
    }

    /** The certificates of a TLS server, {@code null} for a plain one. */
    TestCertificates tlsCertificates() {
        return config.tls;
    }

    /**
     * The requirepass password, if any.
     *
     * @return the password, or empty
     */
    public Optional<String> password() {
        return Optional.ofNullable(config.requirePass);
    }

    /**
     * Version of the binary, e.g. {@code "7.0.15"}.
     *
     * @return the version
     */
    public String version() {
        return binary.version();
    }

    /**
     * The binary this server runs.
     *
     * @return the binary
     */
    public RedisBinary binary() {
        return binary;
    }

    /**
     * Starts the runner's process; a TLS server whose binary lacks TLS fails with {@link TlsUnsupportedException}.
     */
    private RedisProcess start(RedisProcessBuilder builder) {
        try {
            return builder.start();
        } catch (RedisStartException e) {
            throw startFailure(e);
        }
    }

    private RuntimeException startFailure(RedisStartException e) {
        if (config.tls != null && TlsUnsupportedException.matches(e.logs())) {
            return new TlsUnsupportedException(binary, e.getMessage());
        }
        return e;
    }

    /**
     * Stops the server: {@code SHUTDOWN NOSAVE} (resuming it first if paused), then SIGTERM and
     * finally SIGKILL if it has not exited after 5 s each. Blocks until the process is gone.
     * Idempotent; the directory is kept so {@link #restart(Duration)} can reuse it.
     */
    public void stop() {
        process.stop();
    }

    /**
     * Kills the server with SIGKILL if it is running, waits {@code delay}, then starts it again on the
     * same port, directory and options. Blocks until the new process answers PING (at most the start
     * timeout, default 10 s). With {@code appendOnly(true)} the data written before survives
     * (subject to the fsync policy).
     *
     * @param delay how long the server stays down
     * @throws IllegalStateException if the server was closed or does not come back in time
     */
    public void restart(Duration delay) {
        try {
            process.restart(delay);
        } catch (RedisStartException e) {
            throw startFailure(e);
        }
    }

    /** {@code FLUSHALL} (synchronous). */
    public void flushAll() {
        command("FLUSHALL");
    }

    /**
     * {@code INFO section} parsed into {@code key -> value} (comment and blank lines skipped).
     *
     * @param section e.g. {@code "server"}, {@code "replication"}; {@code null} or empty for the default set
     * @return the fields
     */
    public Map<String, String> info(String section) {
        try (RespClient c = connectAdmin()) {
            return parseInfo(section == null || section.isEmpty() ? c.command("INFO") : c.command("INFO", section));
        }
    }

    /**
     * Blocks until this server, as a replica, reports {@code master_link_status:up}, polling INFO replication
     * every 20 ms. A connection closed under the poll counts as "not yet": a sentinel that reconfigures a
     * server ends its client connections ({@code CLIENT KILL TYPE normal}) as part of the change.
     *
     * @param timeout how long to wait
     * @throws IllegalStateException on timeout, naming this server, its last status and its last error
     */
    public void awaitReplicationLinkUp(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String status = null;
        UncheckedIOException lastError = null;
        while (true) {
            try {
                status = info("replication").get("master_link_status");
                lastError = null;
                if ("up".equals(status)) {
                    return;
                }
            } catch (UncheckedIOException e) {
                lastError = e;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("replica " + address() + " did not reach master_link_status:up within "
                        + timeout + " (last status " + status + (lastError == null ? "" : ", last error " + lastError.getMessage())
                        + ")", lastError);
            }
            ProcessSupport.sleep(Duration.ofMillis(20));
        }
    }

    /**
     * Runs one command on a fresh connection (authenticated if requirepass is set) and returns the
     * reply as decoded by {@link RespClient}. Blocks at most 5 s for the reply.
     *
     * @param args the command and its arguments
     * @return the reply
     * @throws RespException on an error reply
     * @throws IllegalStateException if the server is not running
     */
    public Object command(String... args) {
        try (RespClient c = connectAdmin()) {
            return c.command(args);
        }
    }

    /**
     * Runs {@code commands} one after another on one fresh administrator connection (for commands that set
     * connection state for the next, such as {@code ASKING}) and returns their replies in order.
     *
     * @param commands the commands, each with its arguments
     * @return the replies, in order
     * @throws RespException on an error reply
     */
    public List<Object> commandsOnOneConnection(String[]... commands) {
        try (RespClient c = connectAdmin()) {
            List<Object> replies = new ArrayList<>();
            for (String[] command : commands) {
                replies.add(c.command(command));
            }
            return replies;
        }
    }

    /**
     * Opens a client connection to this server, authenticated if requirepass is set.
     *
     * @return the connection; close it when done
     */
    public RespClient client() {
        requireRunning("connect to");
        return RespClient.connect(this);
    }

    private RespClient connectAdmin() {
        requireRunning("send a command to");
        return admin.connect(host(), port(), ADMIN_TIMEOUT);
    }

    /** Logs {@code c} in as the test kit's administrator (see {@link ServerAdmin#login}). */
    void authenticate(RespClient c) {
        admin.login(c);
    }

    /** The test kit administrator's password when the default user is restricted, else {@code null}. */
    String adminPassword() {
        return config.adminPassword;
    }

    /**
     * True when clients without credentials run with restricted commands ({@link RedisServerBuilder#restrictDefaultUser}).
     *
     * @return {@code true} when the default user is restricted
     */
    public boolean isDefaultUserRestricted() {
        return config.defaultUserRules != null;
    }

    private void requireRunning(String action) {
        process.requireRunning(action);
    }

    static Map<String, String> parseInfo(Object reply) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String line : String.valueOf(reply).split("\r?\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon > 0) {
                map.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return map;
    }

    private static String percentEncode(String s) {
        StringBuilder sb = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                sb.append(c);
            } else {
                sb.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return sb.toString();
    }

    @Override
    public String toString() {
        return "RedisServer[" + address() + (isTls() ? " (TLS)" : "") + (isRunning() ? ", pid " + pid() : ", not running") + "]";
    }
}
