package io.coordis.queue;

/** Which end of the list consumers take from; producers always push at the left ({@code LPUSH}). */
public enum Order {
    /** First in, first out: take from the right ({@code RPOP}, {@code BRPOP}, {@code BLMOVE ... RIGHT}). */
    FIFO,
    /** Last in, first out (what classic Redis queue code calls FILO): take from the left ({@code LPOP}, {@code BLPOP}). */
    LIFO;

    /**
     * Whether consumers take from the right end of the list.
     *
     * @return {@code true} for {@link #FIFO}
     */
    public boolean right() {
        return this == FIFO;
    }
}
