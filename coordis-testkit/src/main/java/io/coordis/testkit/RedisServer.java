package io.coordis.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} running as a child process of this JVM on a loopback port, with its
 * own temporary directory (config file, log file, RDB/AOF files).
 *
 * <p>The server is never daemonized, binds only {@code 127.0.0.1}, and by default persists nothing
 * ({@code save ""}, {@code appendonly no}). The configuration is written to {@code redis.conf} in
 * the server directory, so passwords do not appear in the process list. Every server is killed by a
 * JVM shutdown hook if still running when the JVM exits.
 *
 * <p>Methods that change the process state are synchronized; the accessors are safe from any thread.
 */
public final class RedisServer implements AutoCloseable {

    /** The only interface servers bind to. */
    public static final String HOST = "127.0.0.1";

    private static final Logger log = LoggerFactory.getLogger(RedisServer.class);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(5);
    private static final int START_ATTEMPTS = 5;

    private final RedisServerBuilder config;
    private final RedisBinary binary;
    private final Path dir;
    private volatile int port;
    private volatile Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    RedisServer(RedisServerBuilder config) {
        this.config = config;
        this.binary = config.binary != null ? config.binary : RedisBinary.resolve();
        try {
            this.dir = Files.createTempDirectory("coordis-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for redis-server", e);
        }
        this.port = config.port;
    }

    /** A builder with the defaults described in the class documentation. */
    public static RedisServerBuilder builder() {
        return new RedisServerBuilder();
    }

    /** Starts a server with default options; blocks until it answers PING (at most 10 s). */
    public static RedisServer start() {
        return builder().start();
    }

    /** {@code "127.0.0.1"}, or the namespace's address for a server started in a network namespace. */
    public String host() {
        return config.namespace != null ? config.namespace.address() : HOST;
    }

    /** The TCP port; stays the same across {@link #restart(Duration)}. */
    public int port() {
        return port;
    }

    /** {@code "127.0.0.1:PORT"} ({@link #host()}{@code :PORT}). */
    public String address() {
        return host() + ":" + port;
    }

    /**
     * {@code redis://127.0.0.1:PORT}, or {@code redis://:PASSWORD@127.0.0.1:PORT} with requirepass;
     * the scheme is {@code rediss} for a {@link RedisServerBuilder#tls() TLS} server.
     */
    public String uri() {
        String scheme = isTls() ? "rediss://" : "redis://";
        return config.requirePass == null
                ? scheme + address()
                : scheme + ":" + percentEncode(config.requirePass) + "@" + address();
    }

    /** True if the server was built with {@link RedisServerBuilder#tls()}: it accepts TLS connections only. */
    public boolean isTls() {
        return config.tls != null;
    }

    /** For a TLS server, the PEM file of the CA that signed its certificate (what clients must trust). */
    public Optional<Path> tlsCaFile() {
        return isTls() ? Optional.of(config.tls.caFile()) : Optional.empty();
    }

    /** The certificates of a TLS server, {@code null} for a plain one. */
    TestCertificates tlsCertificates() {
        return config.tls;
    }

    /** The requirepass password, if any. */
    public Optional<String> password() {
        return Optional.ofNullable(config.requirePass);
    }

    /** PID of the current process. */
    public long pid() {
        Process p = process;
        if (p == null) {
            throw new IllegalStateException("redis-server for " + address() + " has no process (never started)");
        }
        return p.pid();
    }

    /** Version of the binary, e.g. {@code "7.0.15"}. */
    public String version() {
        return binary.version();
    }

    /** The binary this server runs. */
    public RedisBinary binary() {
        return binary;
    }

    /** The server's private directory (config, log, data files). Deleted by {@link #close()}. */
    public Path dir() {
        return dir;
    }

    /** The redis log file inside {@link #dir()}. */
    public Path logFile() {
        return dir.resolve("redis.log");
    }

    /** True while the process is alive (also while paused). */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** True between {@link #pause()} and {@link #resume()}. */
    public boolean isPaused() {
        return paused && isRunning();
    }

    synchronized void launch() {
        if (closed) {
            throw new IllegalStateException("redis-server for " + address() + " is closed");
        }
        boolean fixedPort = port != 0;
        for (int attempt = 1; ; attempt++) {
            if (!fixedPort) {
                port = ProcessSupport.freePort();
            }
            try {
                process = spawnAndAwait();
                paused = false;
                log.debug("redis-server {} started on {} (pid {})", version(), address(), process.pid());
                return;
            } catch (StartFailure f) {
                if (f.addressInUse && attempt < START_ATTEMPTS) {
                    log.debug("port {} already in use, retrying", port);
                    if (fixedPort) {
                        ProcessSupport.sleep(Duration.ofMillis(100L * attempt));
                    }
                    continue;
                }
                if (config.tls != null && TlsUnsupportedException.matches(f.logs)) {
                    throw new TlsUnsupportedException(binary, f.getMessage());
                }
                throw new IllegalStateException(f.getMessage());
            }
        }
    }

    private Process spawnAndAwait() {
        List<String> command = new ArrayList<>();
        command.add(binary.path().toString());
        command.add(dir.resolve("redis.conf").toString());
        if (config.sentinelLines != null) {
            command.add("--sentinel");
        }
        command.addAll(config.args);
        Process p;
        try {
            Files.writeString(dir.resolve("redis.conf"), config.render(port, dir, binary, false), StandardCharsets.UTF_8);
            Files.deleteIfExists(logFile());
            p = new ProcessBuilder(config.namespace != null ? config.namespace.wrap(command) : command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout.log").toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary.path(), e);
        }
        ProcessSupport.register(p, dir);
        long deadline = System.nanoTime() + config.startTimeout.toNanos();
        String lastError = "no attempt yet";
        while (true) {
            if (!p.isAlive()) {
                ProcessSupport.unregister(p);
                throw failure(p, "redis-server exited with code " + p.exitValue() + " before answering PING");
            }
            try (RespClient c = open(Duration.ofMillis(500))) {
                authenticate(c);
                if ("PONG".equals(c.command("PING"))) {
                    String pid = info(c, "server").get("process_id");
                    if (pid != null && Long.parseLong(pid) == p.pid()) {
                        return p;
                    }
                    lastError = "port answered by another redis-server (pid " + pid + ")";
                }
            } catch (RespException e) {
                lastError = e.getMessage();
                if (!e.code().equals("LOADING")) {
                    killQuietly(p);
                    throw failure(p, "redis-server rejected PING: " + e.getMessage());
                }
            } catch (UncheckedIOException e) {
                lastError = e.getMessage();
            }
            if (System.nanoTime() > deadline) {
                killQuietly(p);
                throw failure(p, "redis-server did not answer PING within " + config.startTimeout
                        + " (last error: " + lastError + ")");
            }
            ProcessSupport.sleep(Duration.ofMillis(20));
        }
    }

    private StartFailure failure(Process p, String what) {
        String logTail = ProcessSupport.tail(logFile(), 30);
        String outTail = ProcessSupport.tail(dir.resolve("stdout.log"), 15);
        boolean inUse = logTail.contains("Address already in use") || outTail.contains("Address already in use");
        List<String> shown = new ArrayList<>();
        shown.add(binary.path().toString());
        shown.add(dir.resolve("redis.conf").toString());
        if (config.sentinelLines != null) {
            shown.add("--sentinel");
        }
        shown.addAll(RedisServerBuilder.maskArgs(config.args));
        String message = what + " on " + address() + "\ncommand: " + String.join(" ", shown)
                + "\nconfig:\n" + config.render(port, dir, binary, true)
                + "\nlog tail (" + logFile() + "):\n" + logTail
                + "\nstdout/stderr tail:\n" + outTail;
        return new StartFailure(message, inUse, logTail + "\n" + outTail);
    }

    /**
     * Stops the server: {@code SHUTDOWN NOSAVE} (resuming it first if paused), then SIGTERM and
     * finally SIGKILL if it has not exited after 5 s each. Blocks until the process is gone.
     * Idempotent; the directory is kept so {@link #restart(Duration)} can reuse it.
     */
    public synchronized void stop() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        if (paused) {
            resume();
        }
        try (RespClient c = open(Duration.ofSeconds(2))) {
            authenticate(c);
            if (binary.majorVersion() >= 7) {
                c.send("SHUTDOWN", "NOSAVE", "NOW");
            } else {
                c.send("SHUTDOWN", "NOSAVE");
            }
            c.read();
        } catch (RuntimeException expected) {
            // the server closes the connection while shutting down
        }
        if (!ProcessSupport.waitFor(p, STOP_TIMEOUT)) {
            log.warn("redis-server {} (pid {}) ignored SHUTDOWN, sending SIGTERM", address(), p.pid());
            p.destroy();
            if (!ProcessSupport.waitFor(p, STOP_TIMEOUT)) {
                killQuietly(p);
            }
        }
        ProcessSupport.unregister(p);
        log.debug("redis-server on {} stopped", address());
    }

    /** Kills the process with SIGKILL (no shutdown, no persistence) and blocks until it has exited. */
    public synchronized void kill() {
        Process p = process;
        if (p != null) {
            killQuietly(p);
            ProcessSupport.unregister(p);
        }
        paused = false;
    }

    /**
     * Freezes the process with SIGSTOP: connections stay open but nothing is answered, like a hung
     * server or a long GC pause. Returns once the kernel reports the process stopped (on Linux; elsewhere right after the signal).
     * Counts as paused from before the signal is sent, so that {@link #resume()} also continues a process
     * whose pause was cut short (interrupted while {@code kill} ran).
     *
     * @throws IllegalStateException if the server is not running
     */
    public synchronized void pause() {
        requireRunning("pause");
        paused = true;
        ProcessSupport.signal(pid(), "STOP");
        ProcessSupport.awaitStopped(pid(), true, Duration.ofSeconds(2));
    }

    /** Continues a paused process with SIGCONT. No effect if not paused. */
    public synchronized void resume() {
        if (!paused || !isRunning()) {
            paused = false;
            return;
        }
        ProcessSupport.signal(pid(), "CONT");
        ProcessSupport.awaitStopped(pid(), false, Duration.ofSeconds(2));
        paused = false;
    }

    /**
     * Kills the server with SIGKILL if it is running, waits {@code delay}, then starts it again on the
     * same port, directory and options. Blocks until the new process answers PING (at most the start
     * timeout, default 10 s). With {@code appendOnly(true)} the data written before survives
     * (subject to the fsync policy).
     *
     * @throws IllegalStateException if the server was closed or does not come back in time
     */
    public synchronized void restart(Duration delay) {
        kill();
        if (!delay.isZero() && !delay.isNegative()) {
            ProcessSupport.sleep(delay);
        }
        launch();
    }

    /** Stops the server (see {@link #stop()}) and deletes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            stop();
        } finally {
            closed = true;
            ProcessSupport.deleteRecursively(dir);
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
     */
    public Map<String, String> info(String section) {
        try (RespClient c = connectAdmin()) {
            return section == null || section.isEmpty() ? parseInfo(c.command("INFO")) : info(c, section);
        }
    }

    /**
     * Blocks until this server, as a replica, reports {@code master_link_status:up}, polling INFO replication
     * every 20 ms. A connection closed under the poll counts as "not yet": a sentinel that reconfigures a
     * server ends its client connections ({@code CLIENT KILL TYPE normal}) as part of the change.
     *
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
     * @throws RespException on an error reply
     */
    public List<Object> commandsOnOneConnection(String[]... commands) {
        try (RespClient c = connectAdmin()) {
            List<Object> replies = new java.util.ArrayList<>();
            for (String[] command : commands) {
                replies.add(c.command(command));
            }
            return replies;
        }
    }

    /** Opens a client connection to this server, authenticated if requirepass is set. */
    public RespClient client() {
        requireRunning("connect to");
        return RespClient.connect(this);
    }

    private RespClient connectAdmin() {
        requireRunning("send a command to");
        RespClient c = open(ADMIN_TIMEOUT);
        try {
            authenticate(c);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * Logs {@code c} in as the test kit's administrator: with the requirepass password, or as
     * {@link RedisServerBuilder#ADMIN_USER} when the default user is restricted; nothing otherwise.
     */
    void authenticate(RespClient c) {
        if (config.adminPassword != null) {
            c.auth(RedisServerBuilder.ADMIN_USER, config.adminPassword);
        } else if (config.requirePass != null) {
            c.auth(config.requirePass);
        }
    }

    /** The test kit administrator's password when the default user is restricted, else {@code null}. */
    String adminPassword() {
        return config.adminPassword;
    }

    /** True when clients without credentials run with restricted commands ({@link RedisServerBuilder#restrictDefaultUser}). */
    public boolean isDefaultUserRestricted() {
        return config.defaultUserRules != null;
    }

    private RespClient open(Duration timeout) {
        return config.tls != null
                ? RespClient.connect(host(), port, timeout, config.tls.adminSslContext())
                : RespClient.connect(host(), port, timeout);
    }

    private void requireRunning(String action) {
        if (!isRunning()) {
            throw new IllegalStateException("cannot " + action + " redis-server on " + address()
                    + ": it is not running" + (closed ? " (closed)" : " (stopped or killed)"));
        }
    }

    private static Map<String, String> info(RespClient c, String section) {
        return parseInfo(c.command("INFO", section));
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

    private static void killQuietly(Process p) {
        p.destroyForcibly();
        if (!ProcessSupport.waitFor(p, Duration.ofSeconds(10))) {
            log.warn("redis-server pid {} did not exit 10s after SIGKILL", p.pid());
        }
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

    private static final class StartFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final boolean addressInUse;
        final String logs;

        StartFailure(String message, boolean addressInUse, String logs) {
            super(message, null, false, false);
            this.addressInUse = addressInUse;
            this.logs = logs;
        }
    }
}
