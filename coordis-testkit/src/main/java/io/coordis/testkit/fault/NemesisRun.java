package io.coordis.testkit.fault;

import io.coordis.testkit.fault.Nemesis.Event;
import io.coordis.testkit.fault.Nemesis.Fault;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The run of a {@link Nemesis}: a background thread that follows the {@link Schedule} (a gap, a fault applied,
 * held and healed) until the end and the first round are both reached, a fault could not be applied, or it is
 * closed. Every fault's healing is registered before the fault is applied, so whatever ends the run leaves nothing
 * applied behind.
 *
 * <p>Thread-safe: started once, read and closed from any thread.
 */
final class NemesisRun {
    private final Schedule schedule;
    private final List<Event> events = new ArrayList<>();
    private final List<Fault> applied = new ArrayList<>();
    private Thread runner;
    private Throwable failure;
    private volatile boolean stopping;

    NemesisRun(Schedule schedule) {
        this.schedule = schedule;
    }

    /** Starts the thread; see {@link Nemesis#start(Duration)}. */
    synchronized void start(Duration total) {
        if (runner != null) {
            throw new IllegalStateException("already started");
        }
        long seed = schedule.seed();
        System.out.println("nemesis seed=" + seed + " (replay with -Dcoordis.nemesis.seed=" + seed + ") kinds="
                + schedule.kinds());
        long end = System.nanoTime() + total.toNanos();
        runner = new Thread(() -> loop(end), "nemesis");
        runner.setDaemon(true);
        runner.start();
    }

    /** See {@link Nemesis#await(Duration)}. */
    boolean await(Duration timeout) throws InterruptedException {
        Thread t = runner();
        if (t == null) {
            return true;
        }
        t.join(Math.max(1, timeout.toMillis()));
        if (t.isAlive()) {
            return false;
        }
        Optional<Throwable> failed = failure();
        if (failed.isPresent()) {
            throw new IllegalStateException("nemesis (seed " + schedule.seed() + ") stopped: " + failed.get(),
                    failed.get());
        }
        return true;
    }

    synchronized Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    synchronized List<Event> events() {
        return List.copyOf(events);
    }

    /** Stops the thread (waiting at most 30 s for it) and heals whatever is still applied. Idempotent. */
    void close() {
        stopping = true;
        Thread t = runner();
        if (t != null) {
            t.interrupt();
            try {
                t.join(30_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        healAll();
    }

    private synchronized Thread runner() {
        return runner;
    }

    private void loop(long end) {
        Schedule.Steps steps = schedule.steps();
        try {
            while (!stopping) {
                Schedule.Planned next = steps.next();
                sleep(next.step().gap());
                boolean firstRoundDone = next.step().round() > 0;
                if (stopping || (firstRoundDone && System.nanoTime() >= end)) {
                    return;
                }
                apply(next);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            if (!stopping) { // a fault cut short by close() is no failure
                synchronized (this) {
                    failure = e;
                }
                System.out.println("nemesis (seed " + schedule.seed() + ") stopped: " + e);
            }
        } finally {
            healAll();
        }
    }

    private void apply(Schedule.Planned next) throws InterruptedException {
        Fault fault = next.target().fault();
        synchronized (this) {
            applied.add(fault);
        }
        long start = System.nanoTime();
        String hit = null;
        try {
            hit = fault.apply(next.step().hold());
            if (hit != null) {
                sleep(next.step().hold());
            }
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot apply " + next.step().kind() + " to " + next.step().target()
                    + ": " + e.getMessage(), e);
        } finally {
            healAll();
            if (hit != null) {
                synchronized (this) {
                    events.add(new Event(next.step().kind(), hit, start, System.nanoTime()));
                }
            }
        }
    }

    /** Heals every applied fault; one whose healing failed (or was interrupted) stays listed, to be tried again. */
    private void healAll() {
        List<Fault> pending;
        synchronized (this) {
            pending = new ArrayList<>(applied);
        }
        for (Fault f : pending) {
            try {
                f.heal();
                synchronized (this) {
                    applied.remove(f);
                }
            } catch (RuntimeException e) {
                System.out.println("nemesis (seed " + schedule.seed() + "): healing failed, will try again: " + e);
            }
        }
    }

    private static void sleep(Duration d) throws InterruptedException {
        TimeUnit.MILLISECONDS.sleep(Math.max(0, d.toMillis()));
    }
}
