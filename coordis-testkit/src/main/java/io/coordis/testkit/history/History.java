package io.coordis.testkit.history;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Writes one client process's history as JSON lines, one {@link Op} per line, each line written through to
 * the file before the call returns, so a process killed with SIGKILL loses at most the line it was writing
 * (the reader skips a torn last line). Thread-safe.
 *
 * <p>Record {@code invoke} right before calling, then {@code ok}, {@code fail} (it certainly did nothing) or
 * {@code info} (it may or may not have happened) right after: the checkers rely on invoke/ok bracketing the
 * real effect in time.
 */
public final class History implements AutoCloseable {
    private final String process;
    private final OutputStream out;

    private History(String process, OutputStream out) {
        this.process = process;
        this.out = out;
    }

    /**
     * Opens (appending) the history file of {@code process}.
     *
     * @param file    the file to append to
     * @param process the process's name in each line
     * @return the open history; close it when done
     */
    public static History open(Path file, String process) {
        try {
            return new History(process, Files.newOutputStream(file, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open history file " + file, e);
        }
    }

    /**
     * Records that the calling thread is about to run {@code f}.
     *
     * @param f     the operation
     * @param key   the object
     * @param value a value; empty for none
     * @param token a number; -1 for none
     */
    public void invoke(String f, String key, String value, long token) {
        record("invoke", f, key, value, token);
    }

    /**
     * Records that {@code f} succeeded.
     *
     * @param f     the operation
     * @param key   the object
     * @param value a value; empty for none
     * @param token a number; -1 for none
     */
    public void ok(String f, String key, String value, long token) {
        record("ok", f, key, value, token);
    }

    /**
     * Records that {@code f} failed and did nothing.
     *
     * @param f     the operation
     * @param key   the object
     * @param value a value; empty for none
     * @param token a number; -1 for none
     */
    public void fail(String f, String key, String value, long token) {
        record("fail", f, key, value, token);
    }

    /**
     * Records an unknown outcome of {@code f}, or an observation.
     *
     * @param f     the operation
     * @param key   the object
     * @param value a value; empty for none
     * @param token a number; -1 for none
     */
    public void info(String f, String key, String value, long token) {
        record("info", f, key, value, token);
    }

    /**
     * Appends one operation of the calling thread, stamped now.
     *
     * @param type  {@code invoke}, {@code ok}, {@code fail} or {@code info}
     * @param f     the operation
     * @param key   the object
     * @param value a value; empty for none
     * @param token a number; -1 for none
     */
    public void record(String type, String f, String key, String value, long token) {
        Op op = new Op(process, Thread.currentThread().getName(), type, f, key, value, token, nowMicros());
        byte[] line = (HistoryLine.write(op) + "\n").getBytes(StandardCharsets.UTF_8);
        synchronized (this) {
            try {
                out.write(line);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write history of " + process, e);
            }
        }
    }

    /**
     * Appends one operation of the calling thread per value, all stamped now, in one write: a batch (say
     * eight deliveries taken at once) costs one system call, and a SIGKILL tears at most its last line.
     *
     * @param type   {@code invoke}, {@code ok}, {@code fail} or {@code info}
     * @param f      the operation
     * @param key    the object
     * @param values the values, one line each
     * @param token  a number; -1 for none
     */
    public void recordAll(String type, String f, String key, List<String> values, long token) {
        String thread = Thread.currentThread().getName();
        long now = nowMicros();
        StringBuilder lines = new StringBuilder();
        for (String value : values) {
            lines.append(HistoryLine.write(new Op(process, thread, type, f, key, value, token, now))).append('\n');
        }
        byte[] bytes = lines.toString().getBytes(StandardCharsets.UTF_8);
        synchronized (this) {
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write history of " + process, e);
            }
        }
    }

    /**
     * Wall-clock microseconds since the epoch.
     *
     * @return the time
     */
    public static long nowMicros() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
