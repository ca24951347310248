package io.coordis.cli.run;

import io.coordis.CoordisException;
import io.coordis.cli.support.Terminal;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Ends a {@code lock} or {@code elect} run exactly once, whoever gets there first — the command thread when the child
 * exits, or the JVM shutdown hook on Ctrl-C / SIGTERM: stops the child (SIGTERM, SIGKILL after the
 * grace period), then releases the lease or resigns the leadership (the claim), so the command never runs
 * unprotected. A claim or child that arrives after the teardown is released or never started. Thread-safe.
 */
public final class Teardown implements AutoCloseable {
    private final Duration grace;
    private final Terminal terminal;
    private final Thread hook = new Thread(this::close, "coordis-shutdown");
    private Claim claim;
    private Process child;
    private boolean closed;
    private boolean hookInstalled;

    public Teardown(Duration grace, Terminal terminal) {
        this.grace = grace;
        this.terminal = terminal;
    }

    /** Runs {@link #close()} if the JVM is asked to exit (Ctrl-C, SIGTERM) before the command is done. */
    public synchronized Teardown installHook() {
        Runtime.getRuntime().addShutdownHook(hook);
        hookInstalled = true;
        return this;
    }

    /**
     * Takes charge of releasing {@code claim} (a lease or a leadership).
     *
     * @return {@code false} when the teardown already ran (the claim has then been released)
     */
    public synchronized boolean adopt(Claim claim) {
        if (closed) {
            release(claim);
            return false;
        }
        this.claim = claim;
        return true;
    }

    /**
     * Starts the child, unless the teardown already ran.
     *
     * @return the process, or {@code null} when the teardown already ran
     */
    synchronized Process launch(ProcessBuilder builder) throws IOException {
        if (closed) {
            return null;
        }
        child = builder.start();
        return child;
    }

    /**
     * Sends SIGTERM to {@code process}, and SIGKILL if it still runs after {@code grace}; blocks until it
     * has exited. Does not take the teardown's lock, so a shutdown can proceed meanwhile.
     */
    public static void stop(Process process, Duration grace) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(grace.toNanos(), TimeUnit.NANOSECONDS)) {
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the teardown ran (or runs): the claim is then released on purpose, not lost. */
    synchronized boolean isClosed() {
        return closed;
    }

    /** How long the child may take to exit after SIGTERM. */
    Duration grace() {
        return grace;
    }

    /** Stops the child, releases the claim and removes the shutdown hook. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            if (child != null) {
                stop(child, grace);
            }
            if (claim != null) {
                release(claim);
            }
        }
        if (hookInstalled && Thread.currentThread() != hook) {
            hookInstalled = false;
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or about to; it finds everything done
            }
        }
    }

    private void release(Claim claim) {
        boolean held = claim.isHeld();
        try {
            claim.release();
        } catch (CoordisException e) {
            if (!held) {
                return; // already lost and reported; nothing of ours is left to release
            }
            terminal.say("could not release " + claim.what() + " (" + e.getMessage()
                    + "); it expires by its TTL");
        }
    }
}
