package io.coordis.redis.runner;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a {@link RedisProcess} brings its server up: writes {@code redis.conf}, spawns {@code redis-server} in the
 * server's directory and asks the probe every 20 ms until it answers; when it does not, the process is killed and
 * the failure is a {@link RedisStartException} holding the command, the masked configuration and the tails of the
 * log and of the output.
 *
 * <p>Not thread-safe: the process calls it under its own lock.
 */
final class ServerLaunch {

    private static final Logger log = LoggerFactory.getLogger(RedisProcess.class);
    private static final String OUTPUT_FILE = "stdout.log";

    private final RedisProcessBuilder options;
    private final RedisBinary binary;
    private final Path dir;
    private final RedisProcessBuilder.Probe probe;

    ServerLaunch(RedisProcessBuilder options, RedisBinary binary, Path dir, Path logFile) {
        this.options = options;
        this.binary = binary;
        this.dir = dir;
        this.probe = options.probe != null ? options.probe : new Ping(logFile);
    }

    /**
     * Starts the server on {@code port} and blocks until it answers (at most the start timeout).
     *
     * @return the process, registered for the shutdown hook
     * @throws RedisStartException if it exits, refuses or stays silent
     */
    Process spawn(String host, int port) {
        Path conf = dir.resolve("redis.conf");
        List<String> command = new ArrayList<>(List.of(binary.path().toString(), conf.toString()));
        command.addAll(options.args);
        Process p;
        try {
            Files.writeString(conf, render(host, port, false), StandardCharsets.UTF_8);
            Files.deleteIfExists(logFile());
            p = new ProcessBuilder(options.launcher.apply(command))
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(OUTPUT_FILE).toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary.path(), e);
        }
        ProcessSupport.register(p, dir);
        long deadline = System.nanoTime() + options.startTimeout.toNanos();
        String lastError = "no attempt yet";
        while (true) {
            if (!p.isAlive()) {
                ProcessSupport.unregister(p);
                throw failure(host, port, "redis-server exited with code " + p.exitValue() + " before answering PING");
            }
            try {
                String notYet = probe.check(host, port, p.pid());
                if (notYet == null) {
                    return p;
                }
                lastError = notYet;
            } catch (UncheckedIOException e) {
                lastError = e.getMessage();
            } catch (RuntimeException e) {
                killQuietly(p);
                ProcessSupport.unregister(p);
                throw failure(host, port, "redis-server rejected PING: " + e.getMessage());
            }
            if (System.nanoTime() > deadline) {
                killQuietly(p);
                ProcessSupport.unregister(p);
                throw failure(host, port, "redis-server did not answer PING within " + options.startTimeout
                        + " (last error: " + lastError + ")");
            }
            ProcessSupport.sleep(Duration.ofMillis(20));
        }
    }

    private RedisStartException failure(String host, int port, String what) {
        String logTail = ProcessSupport.tail(logFile(), 30);
        String outTail = ProcessSupport.tail(dir.resolve(OUTPUT_FILE), 15);
        boolean inUse = logTail.contains("Address already in use") || outTail.contains("Address already in use");
        List<String> shown = new ArrayList<>(List.of(binary.path().toString(), dir.resolve("redis.conf").toString()));
        shown.addAll(RedisConfig.maskArgs(options.args));
        String message = what + " on " + host + ":" + port + "\ncommand: " + String.join(" ", shown)
                + "\nconfig:\n" + render(host, port, true)
                + "\nlog tail (" + logFile() + "):\n" + logTail
                + "\nstdout/stderr tail:\n" + outTail;
        return new RedisStartException(message, inUse, logTail + "\n" + outTail);
    }

    private String render(String host, int port, boolean masked) {
        if (options.config != null) {
            return options.config.render(port, dir, masked);
        }
        return RedisConfig.of(port, host, dir).noSnapshots().line("appendonly", "no").toString();
    }

    private Path logFile() {
        return dir.resolve(RedisProcess.LOG_FILE);
    }

    /** Sends SIGKILL and waits up to 10 s for the exit. */
    static void killQuietly(Process p) {
        p.destroyForcibly();
        if (!ProcessSupport.waitFor(p, Duration.ofSeconds(10))) {
            log.warn("redis-server pid {} did not exit 10s after SIGKILL", p.pid());
        }
    }
}
