package io.coordis.redis.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real {@code redis-server} running as a child process of this JVM on a loopback port, with its own temporary
 * directory (config file, log file, data files).
 *
 * <p>The server is never daemonized and, with the default options, binds only {@code 127.0.0.1}, persists nothing
 * and needs no password. The configuration is written to {@code redis.conf} in the server's directory, so
 * passwords do not appear in the process list. Every server still running when the JVM exits is killed by a
 * shutdown hook.
 *
 * <p>Methods that change the process state are synchronized; the accessors are safe from any thread.
 */
public final class RedisProcess implements AutoCloseable {

    /** The address servers bind to unless told otherwise. */
    public static final String HOST = "127.0.0.1";
    /** The name of the server's log file inside its {@link #dir()}. */
    public static final String LOG_FILE = "redis.log";

    private static final Logger log = LoggerFactory.getLogger(RedisProcess.class);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(5);
    private static final int START_ATTEMPTS = 5;

    private final RedisProcessBuilder options;
    private final RedisBinary binary;
    private final Path dir;
    private final ServerLaunch launch;
    private volatile int port;
    private volatile Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    RedisProcess(RedisProcessBuilder options) {
        this.options = options;
        this.binary = options.binary != null ? options.binary : RedisBinary.resolve();
        try {
            this.dir = Files.createTempDirectory("coordis-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for redis-server", e);
        }
        this.launch = new ServerLaunch(options, binary, dir, logFile());
        this.port = options.port;
    }

    /**
     * A builder with the defaults described in the class documentation.
     *
     * @return a new builder
     */
    public static RedisProcessBuilder builder() {
        return new RedisProcessBuilder();
    }

    /**
     * Starts a server with the default options; blocks until it answers (at most 10 s).
     *
     * @return the running server; close it to stop it
     * @throws RedisStartException   if it does not come up, saying why
     * @throws IllegalStateException if no binary is found (see {@link RedisBinary#resolve()})
     */
    public static RedisProcess start() {
        return builder().start();
    }

    /**
     * The address clients connect to: {@code "127.0.0.1"} unless the builder said otherwise.
     *
     * @return the host
     */
    public String host() {
        return options.host;
    }

    /**
     * The TCP port; stays the same across {@link #restart(Duration)}.
     *
     * @return the port
     */
    public int port() {
        return port;
    }

    /**
     * {@link #host()}{@code :PORT}.
     *
     * @return the address, {@code host:port}
     */
    public String address() {
        return host() + ":" + port;
    }

    /**
     * {@code redis://HOST:PORT}: how a client with no password reaches a server of the default configuration.
     *
     * @return the URI
     */
    public String uri() {
        return "redis://" + address();
    }

    /**
     * PID of the current process.
     *
     * @return the PID
     */
    public long pid() {
        Process p = process;
        if (p == null) {
            throw new IllegalStateException("redis-server for " + address() + " has no process (never started)");
        }
        return p.pid();
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
     * The server's private directory (config, log, data files). Deleted by {@link #close()}.
     *
     * @return the directory
     */
    public Path dir() {
        return dir;
    }

    /**
     * The redis log file inside {@link #dir()}.
     *
     * @return the log file
     */
    public Path logFile() {
        return dir.resolve(LOG_FILE);
    }

    /**
     * True while the process is alive (also while paused).
     *
     * @return {@code true} while the process is alive
     */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /**
     * True between {@link #pause()} and {@link #resume()}.
     *
     * @return {@code true} while paused
     */
    public boolean isPaused() {
        return paused && isRunning();
    }

    /**
     * True once {@link #close()} has been called.
     *
     * @return {@code true} once closed
     */
    public boolean isClosed() {
        return closed;
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
                process = launch.spawn(host(), port);
                paused = false;
                log.debug("redis-server {} started on {} (pid {})", version(), address(), process.pid());
                return;
            } catch (RedisStartException f) {
                if (!f.addressInUse() || attempt >= START_ATTEMPTS) {
                    throw f;
                }
                log.debug("port {} already in use, retrying", port);
                if (fixedPort) {
                    ProcessSupport.sleep(Duration.ofMillis(100L * attempt));
                }
            }
        }
    }

    /**
     * Stops the server: asks it to exit (by default SIGTERM; resuming it first if paused), then SIGTERM and finally
     * SIGKILL if it has not exited after 5 s each. Blocks until the process is gone. Idempotent; the directory is
     * kept so {@link #restart(Duration)} can reuse it.
     */
    public synchronized void stop() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        if (paused) {
            resume();
        }
        try {
            options.shutdown.request(this);
        } catch (RuntimeException expected) {
            // the server closes the connection while shutting down
        }
        if (!ProcessSupport.waitFor(p, STOP_TIMEOUT)) {
            log.warn("redis-server {} (pid {}) did not exit when asked, sending SIGTERM", address(), p.pid());
            p.destroy();
            if (!ProcessSupport.waitFor(p, STOP_TIMEOUT)) {
                ServerLaunch.killQuietly(p);
            }
        }
        ProcessSupport.unregister(p);
        log.debug("redis-server on {} stopped", address());
    }

    /** Kills the process with SIGKILL (no shutdown, no persistence) and blocks until it has exited. */
    public synchronized void kill() {
        Process p = process;
        if (p != null) {
            ServerLaunch.killQuietly(p);
            ProcessSupport.unregister(p);
        }
        paused = false;
    }

    /**
     * Freezes the process with SIGSTOP: connections stay open but nothing is answered, like a hung server or a long
     * GC pause. Returns once the kernel reports the process stopped (on Linux; elsewhere right after the signal).
     * Counts as paused from before the signal is sent, so that {@link #resume()} also continues a process whose
     * pause was cut short (interrupted while {@code kill} ran).
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
     * Kills the server with SIGKILL if it is running, waits {@code delay}, then starts it again on the same port,
     * directory and options. Blocks until the new process answers (at most the start timeout, default 10 s).
     *
     * @param delay how long the server stays down
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

    /**
     * Throws unless the process is alive.
     *
     * @param action what the caller was about to do, for the message ({@code "connect to"})
     * @throws IllegalStateException naming the server and whether it was closed or stopped
     */
    public void requireRunning(String action) {
        if (!isRunning()) {
            throw new IllegalStateException("cannot " + action + " redis-server on " + address()
                    + ": it is not running" + (closed ? " (closed)" : " (stopped or killed)"));
        }
    }

    @Override
    public String toString() {
        return "RedisProcess[" + address() + (isRunning() ? ", pid " + pid() : ", not running") + "]";
    }
}
