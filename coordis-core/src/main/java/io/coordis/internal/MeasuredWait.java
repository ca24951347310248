package io.coordis.internal;

import io.coordis.Telemetry;
import io.coordis.Ticker;

import java.time.Duration;

/**
 * A lock acquisition or a campaign, told to the client's {@link Telemetry} once with how it ended and how long it
 * took. For {@link Telemetry.Wait#NONE} nothing is read, not even the clock.
 */
public final class MeasuredWait {
    /** One try within a wait: the thing won, or {@code null} when the wait ran out. */
    @FunctionalInterface
    public interface Try<T> {
        T within(long waitNanos) throws InterruptedException;
    }

    private MeasuredWait() {
    }

    /** When a wait told to {@code wait} begins: the clock's reading, or 0 when nothing is told. */
    public static long start(Telemetry.Wait wait, Ticker ticker) {
        return wait == Telemetry.Wait.NONE ? 0 : ticker.read();
    }

    /** Tells {@code wait} how the wait begun at {@code start} ended. */
    public static void ended(Telemetry.Wait wait, Ticker ticker, Telemetry.Result result, long start) {
        if (wait != Telemetry.Wait.NONE) {
            wait.ended(result, Duration.ofNanos(ticker.read() - start));
        }
    }

    /**
     * {@code attempt} within {@code waitNanos}, again and again until it wins when {@code untilWon}; told to
     * {@code wait} once: acquired, busy (no wait), timeout, interrupted, or error for any failure.
     */
    public static <T> T repeated(Telemetry.Wait wait, Ticker ticker, long waitNanos, boolean untilWon, Try<T> attempt)
            throws InterruptedException {
        long start = start(wait, ticker);
        Telemetry.Result result = Telemetry.Result.ERROR;
        try {
            T won;
            do {
                won = attempt.within(waitNanos);
            } while (won == null && untilWon);
            result = won != null ? Telemetry.Result.ACQUIRED
                    : waitNanos == 0 ? Telemetry.Result.BUSY : Telemetry.Result.TIMEOUT;
            return won;
        } catch (InterruptedException e) {
            result = Telemetry.Result.INTERRUPTED;
            throw e;
        } finally {
            ended(wait, ticker, result, start);
        }
    }
}
