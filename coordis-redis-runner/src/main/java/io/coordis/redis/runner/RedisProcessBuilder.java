package io.coordis.redis.runner;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Options for a {@link RedisProcess}; obtain one with {@link RedisProcess#builder()}. The defaults give a plain
 * server on a free port of {@code 127.0.0.1} that persists nothing and needs no password. Each {@link #start()}
 * launches a new, independent server, so one builder can serve as a template for several (as long as no fixed
 * {@link #port(int)} is set).
 *
 * <p>The last four options ({@link #config}, {@link #probe}, {@link #shutdown}, {@link #launcher}) let a caller
 * that configures more than the runner does (passwords, TLS, replication, a network namespace) keep the runner's
 * process handling. Not thread-safe: configure on one thread.
 */
public final class RedisProcessBuilder {

    /** Writes the {@code redis.conf} of a server; called on the thread that starts it, before each start. */
    @FunctionalInterface
    public interface Config {
        /**
         * The configuration text for a server listening on {@code port} with its files in {@code dir}.
         *
         * @param port   the port to listen on
         * @param dir    the server's directory
         * @param masked true when the text is for an error message: write {@code ***} for every password
         * @return the configuration text
         */
        String render(int port, Path dir, boolean masked);
    }

    /** Tells whether a just-started server answers; called on the thread that starts it, every 20 ms. */
    @FunctionalInterface
    public interface Probe {
        /**
         * Asks the server once. Blocks briefly (it should use a timeout under a second).
         *
         * @param host the server's address
         * @param port the server's port
         * @param pid  the PID of the process started, which the server that answers must have
         * @return {@code null} if it answers, else why not yet (it is asked again 20 ms later)
         * @throws java.io.UncheckedIOException if it cannot be reached yet (it is asked again)
         * @throws RuntimeException             if it refused in a way waiting will not mend: the start fails
         */
        String check(String host, int port, long pid);
    }

    /**
     * Asks a running server to exit, on the thread that stops it; the runner waits, then sends SIGTERM and finally
     * SIGKILL.
     */
    @FunctionalInterface
    public interface Shutdown {
        /**
         * Sends the request; need not wait for the exit. Exceptions are ignored (a server closes while it exits).
         *
         * @param server the server to stop
         */
        void request(RedisProcess server);
    }

    RedisBinary binary;
    String host = RedisProcess.HOST;
    int port;
    Duration startTimeout = Duration.ofSeconds(10);
    final List<String> args = new ArrayList<>();
    Config config;
    Probe probe;
    Shutdown shutdown = server -> ProcessHandle.of(server.pid()).ifPresent(ProcessHandle::destroy);
    UnaryOperator<List<String>> launcher = UnaryOperator.identity();

    RedisProcessBuilder() {
    }

    /**
     * Runs this binary instead of {@link RedisBinary#resolve()}.
     *
     * @param binary the binary to run
     * @return this builder
     */
    public RedisProcessBuilder binary(RedisBinary binary) {
        this.binary = Objects.requireNonNull(binary, "binary");
        return this;
    }

    /**
     * The address clients reach the server at (and, with the default configuration, the only one it binds).
     *
     * @param host the address
     * @return this builder
     */
    public RedisProcessBuilder host(String host) {
        this.host = Objects.requireNonNull(host, "host");
        return this;
    }

    /**
     * Listens on this fixed port instead of a free one (no retry on a different port if it is taken).
     *
     * @param port the port
     * @return this builder
     */
    public RedisProcessBuilder port(int port) {
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in 1..65535, got " + port);
        }
        this.port = port;
        return this;
    }

    /**
     * How long {@link #start()} and {@link RedisProcess#restart(Duration)} wait for an answer; default 10 s.
     *
     * @param timeout the longest wait for the server to answer
     * @return this builder
     */
    public RedisProcessBuilder startTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("start timeout must be positive, got " + timeout);
        }
        this.startTimeout = timeout;
        return this;
    }

    /**
     * Extra command-line arguments after the config file, e.g. {@code arg("--maxmemory", "10mb")}; they override
     * the configuration.
     *
     * @param args the arguments
     * @return this builder
     */
    public RedisProcessBuilder arg(String... args) {
        this.args.addAll(Arrays.asList(args));
        return this;
    }

    /**
     * Writes this configuration instead of the default ({@link RedisConfig#of}, then {@code save ""} and
     * {@code appendonly no}).
     *
     * @param config writes the configuration
     * @return this builder
     */
    public RedisProcessBuilder config(Config config) {
        this.config = Objects.requireNonNull(config, "config");
        return this;
    }

    /**
     * Asks whether the server answers with this probe instead of the default (its log says it is ready, then an
     * inline {@code PING} without credentials gets {@code PONG}).
     *
     * @param probe asks whether the server answers
     * @return this builder
     */
    public RedisProcessBuilder probe(Probe probe) {
        this.probe = Objects.requireNonNull(probe, "probe");
        return this;
    }

    /**
     * Asks the server to exit this way instead of the default (SIGTERM to its PID).
     *
     * @param shutdown asks the server to exit
     * @return this builder
     */
    public RedisProcessBuilder shutdown(Shutdown shutdown) {
        this.shutdown = Objects.requireNonNull(shutdown, "shutdown");
        return this;
    }

    /**
     * Turns the command line ({@code redis-server redis.conf args...}) into the one started, for example to run it
     * inside a network namespace; default: as it is.
     *
     * @param launcher turns the command line into the one started
     * @return this builder
     */
    public RedisProcessBuilder launcher(UnaryOperator<List<String>> launcher) {
        this.launcher = Objects.requireNonNull(launcher, "launcher");
        return this;
    }

    /**
     * Launches a new server and blocks until it answers (at most the start timeout). A free port that turns out to
     * be taken is retried with another port a few times.
     *
     * @return the running server; close it to stop it
     * @throws RedisStartException   if it does not come up; the message holds the command line, the configuration
     *                               (passwords masked) and the tail of the log
     * @throws IllegalStateException if no binary is found (see {@link RedisBinary#resolve()})
     */
    public RedisProcess start() {
        RedisProcess server = new RedisProcess(copy());
        try {
            server.launch();
            return server;
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /**
     * An independent copy of these options.
     *
     * @return the copy
     */
    public RedisProcessBuilder copy() {
        RedisProcessBuilder b = new RedisProcessBuilder();
        b.binary = binary;
        b.host = host;
        b.port = port;
        b.startTimeout = startTimeout;
        b.args.addAll(args);
        b.config = config;
        b.probe = probe;
        b.shutdown = shutdown;
        b.launcher = launcher;
        return b;
    }
}
