package io.coordis.signal;

import java.time.Duration;
import java.util.Optional;

/**
 * A latched signal: {@link #signal} records the data in a key with a time to live and publishes it, so a
 * waiter that arrives after the signal (within the TTL) still returns at once. The channel is the event's
 * name, so plain subscribers hear it too; the key is derived from the name in the same cluster hash slot
 * ({@code {name}:event}, or {@code name:event} when the name has a {@code {hash tag}}).
 *
 * <p>Waiters subscribe first and then read the key (and read it again after every reconnect), so no
 * ordering of signal and waiter loses the wake-up. Thread-safe.
 */
public interface Event {
    /**
     * The longest TTL an event accepts, 30 days: it is sent in milliseconds, and a bound far below any overflow
     * keeps that exact. An event meant to stay signalled longer is state rather than a signal: keep it in a
     * key of its own.
     */
    Duration MAX_TTL = Duration.ofDays(30);

    /**
     * The event's name, which is also its channel.
     *
     * @return the name
     */
    String name();

    /**
     * The Redis key in which a signal stays recorded for the TTL.
     *
     * @return the key, prefix included
     */
    String key();

    /**
     * How long a signal stays recorded.
     *
     * @return the TTL
     */
    Duration ttl();

    /**
     * Records {@code data} for the TTL (replacing an earlier signal and its TTL) and publishes it, in one
     * script. Blocks for one round trip (at most the command timeout; an interrupt is kept for later).
     *
     * @param data the data, sent as UTF-8
     * @return how many clients subscribed to the channel on the master received it
     */
    long signal(String data);

    /**
     * Removes the recorded signal (reset); answers whether one was recorded. One round trip.
     *
     * @return {@code true} when a signal was recorded
     */
    boolean clear();

    /**
     * The recorded signal's data, if one is recorded now. One round trip.
     *
     * @return the data, or empty when none is recorded
     */
    Optional<String> peek();

    /**
     * A waiter that wakes with the recorded signal at once if there is one, else with the next signal.
     * Blocks until Redis confirmed the subscription and answered the key (at most twice the command timeout).
     *
     * @return the waiter; close it to unsubscribe
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     */
    Waiter waiter() throws InterruptedException;

    /**
     * {@link #waiter()} and {@link Waiter#await(Duration)}, then unsubscribes.
     *
     * @param timeout how long to wait for a signal when none is recorded
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     * @return the signal, or empty when none was recorded or arrived within {@code timeout}
     */
    Optional<Signal> await(Duration timeout) throws InterruptedException;
}
