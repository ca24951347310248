package io.coordis.internal.lease;

import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Runs work on the calling thread while a claim is held, and interrupts that thread if the claim is lost before
 * the work ends. The scoped form of a loss signal, under {@code runLocked} and {@code whileLeader}.
 */
public final class LossScope {
    /** Work run in the scope. */
    @FunctionalInterface
    public interface Work<T, X extends Exception> {
        T run() throws X;
    }

    private final Thread worker = Thread.currentThread();
    private boolean running = true;
    private boolean interrupted;

    private LossScope() {
    }

    /**
     * Runs {@code work} on this thread; if {@code lost} completes while it runs, interrupts this thread. When the
     * loss interrupted it, that interrupt is cleared once the work has returned or thrown, and {@code onLoss}'s
     * exception is thrown instead (with what the work threw, if anything, suppressed), so a result computed
     * without the claim never passes for one computed with it. Otherwise the work's result or exception passes.
     */
    public static <T, X extends Exception> T run(CompletionStage<?> lost, Work<T, X> work,
                                                 Supplier<RuntimeException> onLoss) throws X {
        LossScope scope = new LossScope();
        lost.thenRun(scope::lose);
        T result;
        try {
            result = work.run();
        } catch (Exception e) {
            if (scope.stop()) {
                RuntimeException loss = onLoss.get();
                loss.addSuppressed(e);
                throw loss;
            }
            throw e;
        } finally {
            scope.stop();
        }
        if (scope.stop()) {
            throw onLoss.get();
        }
        return result;
    }

    private synchronized void lose() {
        if (running) {
            interrupted = true;
            worker.interrupt();
        }
    }

    /** Ends the scope (no interrupt from now on); whether the loss interrupted the work, clearing that interrupt. */
    private synchronized boolean stop() {
        running = false;
        if (interrupted) {
            Thread.interrupted(); // our own interrupt, not the caller's
        }
        return interrupted;
    }
}
