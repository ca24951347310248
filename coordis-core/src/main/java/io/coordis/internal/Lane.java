package io.coordis.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/**
 * Runs tasks one at a time, in the order they were handed in, through {@link Timer#deliver}: the calls of one
 * listener keep their order and never overlap, and none of them runs on the client's own threads. At most one
 * task of a lane is with the executor at a time. A task that throws is logged and the lane goes on. Thread-safe.
 */
final class Lane implements Executor {
    private static final Logger log = LoggerFactory.getLogger(Lane.class);

    private final Timer timer;
    private final Queue<Runnable> tasks = new ArrayDeque<>(); // guarded by this
    private boolean running; // guarded by this: a drain is with the executor or running

    Lane(Timer timer) {
        this.timer = timer;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        timer.deliver(this::drain);
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (this) {
                next = tasks.poll();
                if (next == null) {
                    running = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                log.warn("an application callback failed", e);
            }
        }
    }
}
