package io.coordis.internal.contest;

/**
 * What one try of a {@link Contest} came back with: the thing won, or "busy" with how long the holder's claim
 * lasts in milliseconds as Redis reports it ({@code -1}: no expiry, {@code -2}: gone already), or the failure that
 * kept the try from deciding (too few Redlock nodes answered), which the contest treats as an outage. Immutable.
 *
 * @param won          what the try won, or {@code null}
 * @param holderMillis the holder's time left, for a busy answer
 * @param failure      what kept the try from deciding, or {@code null}
 * @param <T>          what is contested
 */
public record Answer<T>(T won, long holderMillis, Throwable failure) {
    /** A try that won {@code won}. */
    public static <T> Answer<T> won(T won) {
        return new Answer<>(won, 0, null);
    }

    /** A try that found the thing held, for {@code holderMillis} more. */
    public static <T> Answer<T> busy(long holderMillis) {
        return new Answer<>(null, holderMillis, null);
    }

    /** A try that could not decide because of {@code failure}. */
    public static <T> Answer<T> undecided(long holderMillis, Throwable failure) {
        return new Answer<>(null, holderMillis, failure);
    }
}
