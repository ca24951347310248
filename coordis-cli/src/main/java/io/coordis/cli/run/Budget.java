package io.coordis.cli.run;

import java.time.Duration;

/**
 * How long a command may wait, counted from its start: connecting (through a Redis restart) and acquiring share it.
 * A {@code null} wait is as long as it takes.
 */
public record Budget(Duration limit, long startNanos) {
    /** The budget of {@code wait} ({@code null}: no limit), starting now. */
    public static Budget of(Duration wait) {
        return new Budget(wait, System.nanoTime());
    }

    /** What is left of it, never negative; {@code null} when there is no limit. */
    public Duration left() {
        if (limit == null) {
            return null;
        }
        Duration left = limit.minusNanos(System.nanoTime() - startNanos);
        return left.isNegative() ? Duration.ZERO : left;
    }
}
