package io.coordis.internal.queue;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * How a reliable queue is kept in Redis, in one place: the queue itself (a plain list named exactly as given)
 * and the keys Coordis keeps beside it, all in the queue's cluster hash slot ({@link QueueKeys} names them),
 * and the one reader of its consumer registry. The scripts that write and read these point here. For a queue
 * {@code jobs}:
 * <pre>
 * jobs                      the messages (LPUSH at the left, FIFO consumers take from the right)
 * {jobs}:consumers          registry: consumer id -> "slots lastBeatMs ttlMs retentionMs" (beat.lua writes it)
 * {jobs}:hb:ID              a consumer's heartbeat (expires after the heartbeat TTL)
 * {jobs}:proc:ID:K          processing slot K of consumer ID (a list; its rightmost element is delivered)
 * {jobs}:settled:ID         last settled delivery number per slot of consumer ID (one HINCRBY per settle)
 * {jobs}:attempts           failed deliveries per payload (SHA-1); absent while no message in play has failed
 * {jobs}:dead               dead letters (a plain list, newest at the left)
 * {jobs}:delayed            delayed retries: token -> due time;  {jobs}:delayed:data  token -> payload
 * {jobs}:enqueued           enqueue time per payload (SHA-1) of the first and last payload of each Coordis push;
 *                           another message was enqueued with the nearest one behind it (oldest.lua reads it)
 * {jobs}:settled            messages acked or dead-lettered, ever (an integer; settle.lua and sweep.lua raise it)
 * </pre>
 * Public for the inspector; applications have no need of it.
 */
public final class QueueLayout {
    private QueueLayout() {
    }

    /** A consumer's registry entry. */
    public record Registration(int slots, long lastBeatMillis, long ttlMillis, long retentionMillis) {
    }

    /**
     * The consumer registry of {@code queue}.
     *
     * @param queue the queue's list key
     * @return the registry key
     */
    public static String registryKey(String queue) {
        return new QueueKeys(queue).registry;
    }

    /**
     * The queue, its registry, dead letters, delayed retries, enqueue times and settled count, in that order.
     *
     * @param queue the queue's list key
     * @return the six keys
     */
    public static List<String> figureKeys(String queue) {
        QueueKeys keys = new QueueKeys(queue);
        return List.of(keys.queue, keys.registry, keys.dead, keys.delayed, keys.enqueued, keys.settledCount);
    }

    /**
     * A consumer's heartbeat, then its {@code slots} processing slots in order.
     *
     * @param queue    the queue's list key
     * @param consumer the consumer's id
     * @param slots    the consumer's slot count
     * @return the heartbeat key, then the slot keys
     */
    public static List<String> consumerKeys(String queue, String consumer, int slots) {
        QueueKeys keys = new QueueKeys(queue);
        List<String> out = new ArrayList<>(slots + 1);
        out.add(keys.heartbeat(consumer));
        out.addAll(keys.slots(consumer, slots));
        return out;
    }

    /**
     * Reads a registry entry {@code "<slots> <last beat ms> <ttl ms> <retention ms>"}; empty when it is not one.
     *
     * @param value the entry as stored; null reads as empty
     * @return the entry, or empty when the value is not one
     */
    public static Optional<Registration> registration(String value) {
        String[] p = value == null ? new String[0] : value.trim().split(" ");
        if (p.length < 4) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Registration(Integer.parseInt(p[0]), Long.parseLong(p[1]), Long.parseLong(p[2]),
                    Long.parseLong(p[3])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
