package io.coordis.queue;

/** Which end of the list consumers take from; producers always push at the left ({@code LPUSH}). */
public enum Order {
    /** First in, first out: take from the right ({@code RPOP}, {@code BRPOP}, {@code BLMOVE ... RIGHT}). */
    FIFO,
    /** Last in, first out (the seed's FILO): take from the left ({@code LPOP}, {@code BLPOP}). */
    LIFO;

    boolean right() {
        return this == FIFO;
    }

    String side() {
        return this == FIFO ? "R" : "L";
    }
}
