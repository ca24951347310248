package io.coordis.election;

/**
 * Told when this candidate's leadership starts and ends. Called on the client's callback executor
 * ({@link io.coordis.Coordis.Builder#callbackExecutor}), one call at a time per election and in order, never on a
 * thread the client needs: a call that blocks delays this election's later calls, not its renewals. Exceptions they
 * throw are logged and otherwise ignored. All methods default to doing nothing.
 */
public interface ElectionListener {

    /**
     * This candidate became leader with {@code leadership.term()}.
     *
     * @param leadership the new leadership
     */
    default void elected(Leadership leadership) {
    }

    /**
     * This candidate's leadership ended: resigned, taken over, expired, or its local deadline passed
     * without a successful renewal. {@code reason} says which, for logs. From this call on,
     * {@link Leadership#isHeld()} is {@code false}.
     *
     * @param leadership the leadership that ended
     * @param reason     what ended it, for logs
     */
    default void revoked(Leadership leadership, String reason) {
    }

    /**
     * Redis handed out a term not above the highest this candidate had seen ({@code highestSeen}), so it
     * lost data. When this candidate was being elected the term {@code got} was refused and the counter
     * raised past {@code highestSeen}; when another candidate leads with it, {@code got} is that
     * leader's term and a fenced resource will refuse its writes. Also logged at ERROR.
     *
     * @param highestSeen the highest term this candidate had seen
     * @param got         the term Redis handed out
     */
    default void termRegressed(long highestSeen, long got) {
    }
}
