package io.coordis.internal.queue;

import io.coordis.CoordisException;
import io.coordis.WrongTypeException;
import io.coordis.internal.Failures;
import io.coordis.internal.Keys;
import io.coordis.internal.redis.ListCommands;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/** Checks shared by both kinds of queue: names, payload sizes, and naming the key of a WRONGTYPE error. */
final class Payloads {
    private Payloads() {
    }

    static String name(String name) {
        return Keys.requireName("queue name", name, null);
    }

    static byte[] utf8(String payload) {
        return Objects.requireNonNull(payload, "payload must not be null").getBytes(StandardCharsets.UTF_8);
    }

    /** Checks every payload before any is sent, so a refused batch pushes nothing. */
    static List<byte[]> checked(List<byte[]> payloads, int maxBytes, String queue) {
        Objects.requireNonNull(payloads, "payloads must not be null");
        List<byte[]> copy = new ArrayList<>(payloads.size());
        for (int i = 0; i < payloads.size(); i++) {
            byte[] p = Objects.requireNonNull(payloads.get(i), "payload " + i + " must not be null");
            if (p.length > maxBytes) {
                throw new IllegalArgumentException("message " + (payloads.size() > 1 ? i + " " : "") + "for queue '"
                        + queue + "' is " + p.length + " bytes, over the maximum of " + maxBytes
                        + " (QueueOptions.withMaxMessageBytes); nothing was pushed");
            }
            copy.add(p);
        }
        return copy;
    }

    /**
     * Waits for {@code reply}; a failure is thrown naming the queue {@code name}, and a WRONGTYPE error whose key
     * Redis did not name also names the queue's Redis key {@code queueKey} when that key holds another type.
     */
    static <T> T await(ListCommands lists, CompletableFuture<T> reply, String name, String queueKey)
            throws InterruptedException {
        try {
            return lists.await(reply);
        } catch (CoordisException e) {
            throw named(lists, e, name, queueKey);
        }
    }

    /**
     * {@code e} naming the queue {@code name} (and, for a WRONGTYPE error without a key, its Redis key
     * {@code queueKey} and that key's type).
     */
    static CoordisException named(ListCommands lists, CoordisException e, String name, String queueKey)
            throws InterruptedException {
        CoordisException specific = e instanceof WrongTypeException w ? wrongType(lists, w, queueKey) : e;
        return Failures.about(Failures.object("queue", name), specific);
    }

    private static WrongTypeException wrongType(ListCommands lists, WrongTypeException e, String queueKey)
            throws InterruptedException {
        if (e.key() != null) {
            return e;
        }
        String type;
        try {
            type = lists.await(lists.type(queueKey));
        } catch (CoordisException other) {
            return e;
        }
        if ("list".equals(type) || "none".equals(type)) {
            return e;
        }
        String node = e.node().orElse(lists.address());
        return new WrongTypeException(node, queueKey, type, "Redis at " + node + ": key '" + queueKey
                + "' holds a " + type + ", not a list; another program uses this name: choose another queue "
                + "name or remove the key", e);
    }
}
