package io.coordis.queue;

import io.coordis.Outcome;
import java.time.Duration;
import java.util.List;

/**
 * A queue that loses no message when consumers die or replies are lost: at-least-once delivery over a
 * plain Redis list. Producers {@code LPUSH} the payload bytes unchanged, so foreign clients can push
 * ({@code LPUSH q msg}) and Coordis consumers take their messages, and the other way round.
 *
 * <h2>How it works, and why</h2>
 * <ul>
 *   <li><b>Processing slots.</b> A {@link Consumer} has {@code slots} processing lists
 *       ({@code {q}:proc:ID:K}). A take moves a message atomically from the queue into a free slot
 *       ({@code LMOVE} in {@code settle.lua}, or {@code BLMOVE} to wait) and hands it out as the slot's next
 *       delivery {@code ID/K/N}. A slot's delivered message is always its rightmost element, and a slot gets
 *       no new delivery until the previous one is settled. That gives every delivery an identity without
 *       an envelope in the queue: {@code ack} removes exactly that delivery's message, even when identical
 *       payloads are in flight, where {@code LREM processing 1 msg} would remove whichever copy it finds.</li>
 *   <li><b>Exactly-once settling.</b> The slot's last settled number is recorded ({@code {q}:settled:ID})
 *       in the same script that removes the message, so an ack or nack retried after a lost reply finds
 *       it settled and touches nothing.</li>
 *   <li><b>Lost replies to the move.</b> A take first hands out what is already in the slot (a message
 *       moved by a {@code BLMOVE} whose reply was lost, or that was interrupted), then moves a new one; a
 *       blocking move that failed is followed by such a look. A blocking connection given up on is killed
 *       on the server ({@code CLIENT KILL ID}) so it cannot move a message later.</li>
 *   <li><b>Recovery by heartbeats, not a visibility deadline.</b> Each consumer renews a heartbeat key
 *       ({@code {q}:hb:ID}, TTL {@code heartbeatTtl}) every third of the TTL on a timer that does not
 *       depend on how long processing takes, and registers its slots in {@code {q}:consumers}. Every
 *       consumer sweeps every {@code sweepInterval} ({@link #sweep()} also runs on demand): for each
 *       registered consumer whose heartbeat key is absent, one script checks the key again and moves the
 *       slots' messages back to the end consumers take from next, counting a failed delivery each. The
 *       check and the moves are one atomic step, so sweepers racing each other move each message once, and
 *       a live consumer whose heartbeat is current is never robbed however slow its processing. A visibility
 *       deadline would instead force every long job to extend its messages one by one, and would redeliver
 *       the work of a live consumer that forgot to. A dead consumer's messages are back within
 *       {@code heartbeatTtl + 2 × sweepInterval} of its last heartbeat while any consumer or operator sweeps.</li>
 *   <li><b>Attempts and dead letters without an envelope.</b> Failed deliveries are counted per distinct
 *       payload in {@code {q}:attempts} (by SHA-1), cleared on ack. The trade-off: identical payloads share
 *       one count (a failure of one counts for its twins, an ack of one clears it). After
 *       {@code maxAttempts} failed deliveries the message goes to {@code {q}:dead}, a plain list, from which
 *       {@link #requeueDead(int)} puts it back. Delayed nacks wait in a sorted set by due time
 *       ({@code {q}:delayed} + {@code {q}:delayed:data}), outside the queue, so no consumer, ours or
 *       foreign, sees them early; sweepers move them back when due.</li>
 *   <li><b>Cluster.</b> Every key of a queue is in the queue's hash slot ({@code {q}:...}, or the name's own
 *       {@code {tag}}), and scripts name all keys they touch.</li>
 * </ul>
 *
 * <p><b>Guarantees.</b> With Redis persisting every write ({@code appendfsync always}) or a replica taking
 * over with all writes, no message is lost: each is acked once, or dead-lettered. Messages may be
 * delivered more than once (a consumer died, or a push whose reply was lost was retried); make processing
 * idempotent. A consumer that stalls longer than the heartbeat TTL may find its deliveries
 * {@link Outcome#GONE} on ack: they were redelivered. Without persistence, a Redis restart loses what it held.
 *
 * <p>Thread-safe. Methods block until Redis answers (at most the command timeout) and throw
 * {@link io.coordis.CoordisException} subclasses on trouble ({@link io.coordis.WrongTypeException} when the
 * queue key is not a list); a payload over {@code maxMessageBytes} is refused before anything is sent.
 */
public interface ReliableQueue {
    /**
     * The queue's list key, exactly as given.
     *
     * @return the name
     */
    String name();

    /**
     * The options this queue was made with.
     *
     * @return the options
     */
    QueueOptions options();

    /**
     * Pushes one message at the back; answers the queue's length afterwards.
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
     * Pushes all messages in one script (atomically), in order: the first is taken first by FIFO consumers.
     * If the reply is lost, the messages may or may not be in; pushing again may duplicate them.
     *
     * @param payloads the messages, first taken first
     * @return the queue's length after the push
     * @throws InterruptedException when interrupted while waiting for the reply; the messages may be in
     */
    long pushAll(List<byte[]> payloads) throws InterruptedException;

    /**
     * Starts a consumer: registers it, starts its heartbeat and its sweeps. Close it to stop; closing puts
     * its unsettled messages back in the queue.
     *
     * @return the consumer, taking nothing until asked
     * @throws InterruptedException when interrupted while registering (nothing is left running)
     */
    Consumer consumer() throws InterruptedException;

    /**
     * Acknowledges the delivery with this id (as printed by {@link Delivery#id()}), from any process.
     *
     * @param deliveryId the delivery's id
     * @return the outcome
     * @throws InterruptedException when interrupted while waiting for the reply; the outcome is then unknown
     */
    Outcome ack(String deliveryId) throws InterruptedException;

    /**
     * Gives back the delivery with this id, from any process; see {@link Delivery#nack(Duration)}.
     *
     * @param deliveryId the delivery's id
     * @param delay      how long before the message may be taken again; {@link Duration#ZERO} requeues it at once
     * @return the outcome
     * @throws InterruptedException when interrupted while waiting for the reply; the outcome is then unknown
     */
    Outcome nack(String deliveryId, Duration delay) throws InterruptedException;

    /**
     * Puts the messages of dead consumers (heartbeat expired) back in the queue, and due delayed retries;
     * answers how many messages left dead consumers' slots (requeued or dead-lettered). Safe to run from
     * many processes at once; never touches a consumer whose heartbeat is current.
     *
     * @return how many messages left dead consumers' slots
     * @throws InterruptedException when interrupted while waiting for a reply
     */
    int sweep() throws InterruptedException;

    /**
     * Moves up to {@code max} dead letters back to the queue (oldest first); answers how many.
     *
     * @param max the most dead letters to move
     * @return how many were moved
     * @throws InterruptedException when interrupted while waiting for the reply
     */
    int requeueDead(int max) throws InterruptedException;

    /**
     * Depth, in-flight per consumer, age of the oldest ready message, dead letters, consumers.
     *
     * @return the statistics, read now
     * @throws InterruptedException when interrupted while waiting for the reply
     */
    QueueStats stats() throws InterruptedException;
}
