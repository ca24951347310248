package io.coordis.queue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A plain Redis list used as a queue, exactly as other languages use one: producers {@code LPUSH}, FIFO
 * consumers {@code RPOP}/{@code BRPOP}, LIFO consumers {@code LPOP}/{@code BLPOP}. The list is named
 * exactly as given and holds the payload bytes unchanged (no envelope), so a Python {@code LPUSH q msg}
 * feeds a Coordis consumer and a Python {@code RPOP q} gets exactly the bytes a Coordis producer pushed.
 *
 * <p>A pop removes the message before the reply reaches the caller: if the connection fails between the
 * two (or a blocking pop is interrupted after Redis served it), the message is lost. For messages that
 * must not be lost use {@link ReliableQueue}, or Redis's classic reliable-queue pattern {@link #moveTo} +
 * {@link #remove}.
 *
 * <p>Thread-safe. Every method blocks the caller until Redis answers (at most the command timeout, plus
 * the wait for blocking pops) and throws {@link io.coordis.CoordisException} subclasses on Redis trouble:
 * {@link io.coordis.WrongTypeException} when the key holds something other than a list,
 * {@link io.coordis.NodeUnavailableException} when Redis is down or slow. Payloads over the configured
 * maximum are refused with {@link IllegalArgumentException} before anything is sent.
 */
public interface Queue {
    /**
     * The list's key, exactly as given.
     *
     * @return the name
     */
    String name();

    /**
     * {@code LPUSH}: adds {@code payload} at the back; answers the queue's length afterwards.
     *
     * @param payload the message
     * @return the queue's length after the push
     * @throws InterruptedException when interrupted while waiting for the reply; the message may be in
     */
    long push(byte[] payload) throws InterruptedException;

    /**
     * {@link #push(byte[])} of the UTF-8 bytes of {@code payload}.
     *
     * @param payload the message
     * @return the queue's length after the push
     * @throws InterruptedException when interrupted while waiting for the reply; the message may be in
     */
    long push(String payload) throws InterruptedException;

    /**
     * One {@code LPUSH} of all payloads, in order (the first is taken first by FIFO consumers).
     *
     * @param payloads the messages, first taken first
     * @return the queue's length after the push
     * @throws InterruptedException when interrupted while waiting for the reply; the messages may be in
     */
    long pushAll(List<byte[]> payloads) throws InterruptedException;

    /**
     * Takes one message without waiting ({@code RPOP} for FIFO, {@code LPOP} for LIFO); empty when none.
     *
     * @return the message, or empty when the queue is empty
     * @throws InterruptedException when interrupted while waiting for the reply; a message taken meanwhile is lost
     */
    Optional<byte[]> pop() throws InterruptedException;

    /**
     * Takes up to {@code max} messages at once ({@code RPOP key count}); an empty list when none.
     *
     * @param max the most messages to take
     * @return the messages, first taken first; empty when none
     * @throws InterruptedException when interrupted while waiting for the reply; messages taken meanwhile are lost
     */
    List<byte[]> pop(int max) throws InterruptedException;

    /**
     * Waits up to {@code wait} for a message ({@code BRPOP}/{@code BLPOP} on a connection of its own);
     * empty when none came.
     *
     * @param wait how long to wait
     * @return the message, or empty when none came in time
     * @throws InterruptedException when interrupted while waiting; a message taken meanwhile is lost
     */
    Optional<byte[]> pop(Duration wait) throws InterruptedException;

    /**
     * The classic safe pop of Redis's reliable-queue pattern: atomically moves one message into {@code processingList} ({@code LMOVE}, or
     * {@code BLMOVE} waiting up to {@code wait}; the successors of {@code RPOPLPUSH}/{@code BRPOPLPUSH}) and
     * answers it. The message stays in {@code processingList} until {@link #remove} takes it out, so a lost
     * reply or an interrupt loses nothing: look into {@code processingList}. Plain lists on both sides, so
     * Python's {@code rpoplpush(q, cache)} + {@code lrem(cache, 1, msg)} interoperates. Nothing requeues
     * from a caller-named list automatically; use {@link ReliableQueue} for that.
     *
     * @param processingList the list the message is moved to
     * @param wait           how long to wait; {@link Duration#ZERO} does not wait
     * @return the message, or empty when none came in time
     * @throws InterruptedException when interrupted while waiting; a message moved meanwhile is in {@code processingList}
     */
    Optional<byte[]> moveTo(String processingList, Duration wait) throws InterruptedException;

    /**
     * {@code LREM processingList 1 payload}: whether one copy of {@code payload} was removed.
     *
     * @param processingList the list to remove it from
     * @param payload        the message
     * @return {@code true} when a copy was removed
     * @throws InterruptedException when interrupted while waiting for the reply
     */
    boolean remove(String processingList, byte[] payload) throws InterruptedException;

    /**
     * {@code LLEN}: how many messages wait.
     *
     * @return the queue's length
     * @throws InterruptedException when interrupted while waiting for the reply
     */
    long depth() throws InterruptedException;
}
