package io.coordis.internal;

import io.coordis.Telemetry;
import io.coordis.Ticker;

import java.time.Duration;

/**
 * A lock acquisition or a campaign, told to the client's {@link Telemetry} once with how it ended and how long it
 * took. For {@link Telemetry.Wait#NONE} nothing is read, not even the clock.
 */
public final class MeasuredWait {
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
}
