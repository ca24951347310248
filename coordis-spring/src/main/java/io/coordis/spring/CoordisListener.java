package io.coordis.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Consumes the Coordis reliable queue {@link #queue()} with the annotated bean method: a return acknowledges
 * the message, an exception gives it back for another delivery after {@link #backoff()} (doubling with each
 * failed delivery, at most 5 minutes), and after {@link #maxAttempts()} failed deliveries it goes to the dead
 * letters ({@code {queue}:dead}). Delivery is at least once: a message whose consumer died is delivered again,
 * so make the method idempotent.
 *
 * <p>The method takes one parameter: {@code String} (the payload as UTF-8), {@code byte[]} (the payload) or
 * {@link io.coordis.queue.Delivery} (to read {@code id()} and {@code attempts()}; do not settle it yourself).
 *
 * <pre>{@code
 * @CoordisListener(queue = "orders", concurrency = 4)
 * void onOrder(String order) { ... }
 * }</pre>
 *
 * <p>Each annotated method gets a consumer with {@link #concurrency()} threads, started with the application
 * context. When the context closes, the consumer stops taking messages, lets the messages in hand finish (for
 * up to 30 seconds, then interrupts them) and puts back any it could not settle. If the process dies, the
 * other consumers of the queue put its messages back once its heartbeat ({@link #heartbeatTtl()}) expired.
 *
 * <p>Attributes accept {@code ${...}} placeholders; the client's key prefix goes before the queue name.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface CoordisListener {
    /**
     * The queue's name.
     *
     * @return the queue's name, its list key
     */
    String queue();

    /**
     * How many messages this method processes at once, each on a thread of its own; default 1, at most 1024.
     *
     * @return the number of messages processed at once
     */
    int concurrency() default 1;

    /**
     * Failed deliveries after which a message goes to the dead letters; default 5.
     *
     * @return the number of failed deliveries before dead-lettering
     */
    int maxAttempts() default 5;

    /**
     * The pause before a failed message is delivered again, doubled with each failure; default 1s, "0s" for none.
     *
     * @return the first pause, as a duration such as {@code 1s}
     */
    String backoff() default "1s";

    /**
     * How long this consumer's heartbeat lives unrenewed, so how soon its messages return if it dies; default 10s.
     *
     * @return the TTL, as a duration such as {@code 10s}
     */
    String heartbeatTtl() default "10s";
}
