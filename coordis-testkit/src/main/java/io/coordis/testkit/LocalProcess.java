package io.coordis.testkit;

import io.coordis.redis.runner.RedisProcess;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What a {@link RedisServer} and a {@link RedisSentinel} share: a {@code redis-server} child process of this JVM
 * (the runner's {@link RedisProcess}) on a loopback port, with its own directory, and the signals a test sends it.
 *
 * <p>The process methods are synchronized by the process; the accessors are safe from any thread.
 */
abstract sealed class LocalProcess implements AutoCloseable permits RedisServer, RedisSentinel {

    /** The runner's process this one is. */
    abstract RedisProcess process();

    /**
     * {@code "127.0.0.1"}, or the namespace's address for a server started in a network namespace.
     *
     * @return the host
     */
    public String host() {
        return process().host();
    }

    /**
     * The TCP port; stays the same across a restart.
     *
     * @return the port
     */
    public int port() {
        return process().port();
    }

    /**
     * {@code "127.0.0.1:PORT"} ({@link #host()}{@code :PORT}).
     *
     * @return the address
     */
    public String address() {
        return process().address();
    }

    /**
     * PID of the current process.
     *
     * @return the PID
     */
    public long pid() {
        return process().pid();
    }

    /**
     * The process's private directory (config, log, data files). Deleted by {@link #close()}.
     *
     * @return the directory
     */
    public Path dir() {
        return process().dir();
    }

    /**
     * The redis log file inside {@link #dir()}.
     *
     * @return the log file
     */
    public Path logFile() {
        return process().logFile();
    }

    /**
     * True while the process is alive (also while paused).
     *
     * @return {@code true} while the process is alive
     */
    public boolean isRunning() {
        return process().isRunning();
    }

    /**
     * True between {@link #pause()} and {@link #resume()}.
     *
     * @return {@code true} while paused
     */
    public boolean isPaused() {
        return process().isPaused();
    }

    /** Kills the process with SIGKILL (no shutdown, no persistence) and blocks until it has exited. */
    public void kill() {
        process().kill();
    }

    /**
     * Freezes the process with SIGSTOP: connections stay open but nothing is answered, like a hung
     * server or a long GC pause. Returns once the kernel reports the process stopped (on Linux; elsewhere right after the signal).
     * Counts as paused from before the signal is sent, so that {@link #resume()} also continues a process
     * whose pause was cut short (interrupted while {@code kill} ran).
     *
     * @throws IllegalStateException if the process is not running
     */
    public void pause() {
        process().pause();
    }

    /** Continues a paused process with SIGCONT. No effect if not paused. */
    public void resume() {
        process().resume();
    }

    /**
     * Stops the process ({@code SHUTDOWN NOSAVE}, resuming it first if paused, then SIGTERM and finally SIGKILL if
     * it has not exited after 5 s each) and deletes its directory. Idempotent.
     */
    @Override
    public void close() {
        process().close();
    }
}
