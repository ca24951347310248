package io.coordis.signal;

import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Signal and wait over Redis pub/sub: plain {@code PUBLISH}/{@code SUBSCRIBE} on the channel names given,
 * so {@code redis-cli PUBLISH} wakes a Coordis waiter and a Coordis signal reaches any subscriber.
 * Obtained from {@link io.coordis.Coordis#signals()}; thread-safe; closed with its client.
 *
 * <p><b>Delivery is at most once.</b> Redis keeps no pub/sub messages: one published before a waiter
 * subscribed, or while its connection was down, is lost. Therefore every waiting method here first
 * subscribes and returns a handle confirmed by Redis; trigger the work after that, then await the handle.
 * After a lost connection, Coordis subscribes again and reports the gap ({@link Waiter#gaps()},
 * {@link SignalListener#onGap}). For a signal that must not be missed by a late waiter use an {@link Event}.
 *
 * <p><b>Master and replicas.</b> Given replica URLs ({@link io.coordis.Coordis.Builder#replicaUrls}),
 * signals are published on the master and every waiter subscribes on the master and on each replica, as
 * {@code PUBLISH} is replicated; a waiter then still wakes when the master or the link to it fails, and
 * wakes once. Nodes that cannot be subscribed when a handle is made are skipped (the handle fails only when
 * no node can be subscribed). A listener hears each signal once: copies from several nodes are matched by
 * their order and content, so two identical signals published back to back across a node's outage may be
 * heard as one. With several independent masters (Redlock), signals use the first.
 *
 * <p><b>Redis Cluster.</b> {@code PUBLISH} on any node reaches subscribers on every node, so signals, waiters
 * and events work as on one server; but Redis counts receivers per node, so {@link #signal} counts only those
 * connected to the node that ran it. {@link #signalOne} gathers the waiting channels from every reachable
 * node and publishes on the node where the chosen waiter listens, so its count is exact.
 *
 * <p>Many waiters share one pub/sub connection per node and no threads of their own.
 */
public interface Signals {
    /**
     * Publishes {@code data} on {@code channel} (broadcast). Blocks for one round trip (at most the command
     * timeout; an interrupt meanwhile is kept for later, not thrown).
     *
     * @param channel the channel
     * @param data    the data, sent as UTF-8
     * @return how many clients subscribed on the master received it (subscribers on replicas are not counted;
     *         on a cluster, only those on the node that ran the PUBLISH)
     * @throws IllegalArgumentException for an empty channel, or one longer than 1,024 bytes in UTF-8 (as for every
     *                                  channel, pattern and event name here), or data over the client's maximum
     *                                  ({@link io.coordis.Coordis.Builder#maxSignalBytes}, 1 MiB by default; as
     *                                  for {@link #signalOne} and {@link Event#signal}), before anything is sent
     * @throws io.coordis.CoordisException when the master is unavailable
     */
    long signal(String channel, String data);

    /**
     * Publishes {@code data} to one waiter of {@link #unicastWaiter(String) unicast channel} {@code channel},
     * chosen at random: one script lists {@code PUBSUB CHANNELS <channel>?*} (glob characters in
     * {@code channel} escaped) on the master and publishes to one of them. Blocks for one round trip (on a
     * cluster: one to each node, in parallel, then one to publish).
     *
     * @param channel the unicast channel, without a waiter's id
     * @param data    the data, sent as UTF-8
     * @return 0 when nobody waits, else how many clients received it (1 unless several share an id)
     */
    long signalOne(String channel, String data);

    /**
     * Subscribes to {@code channel}; blocks until Redis confirmed (at most the command timeout per node).
     *
     * @param channel the channel
     * @return the waiter; close it to unsubscribe
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     * @throws io.coordis.CoordisException when no node could be subscribed
     */
    Waiter waiter(String channel) throws InterruptedException;

    /**
     * Like {@link #waiter(String)}, waking on the first signal on any of {@code channels}.
     *
     * @param channels the channels
     * @return the waiter; close it to unsubscribe
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     */
    Waiter waiterForAny(Collection<String> channels) throws InterruptedException;

    /**
     * Like {@link #waiter(String)} for a glob {@code pattern} ({@code PSUBSCRIBE}).
     *
     * @param pattern a glob pattern of channels
     * @return the waiter; close it to unsubscribe
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     */
    Waiter waiterForPattern(String pattern) throws InterruptedException;

    /**
     * A unicast waiter: subscribes to {@code channel} followed by a fresh unique id (a UUID), so that
     * {@link #signalOne} reaches it or another such waiter, but only one. {@link Waiter#channels()} names
     * the channel. Otherwise like {@link #waiter(String)}.
     *
     * @param channel the unicast channel, before the waiter's id
     * @return the waiter; close it to unsubscribe
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     */
    Waiter unicastWaiter(String channel) throws InterruptedException;

    /**
     * Subscribes to all of {@code channels} at once and completes when each delivered a signal.
     *
     * @param channels the channels to hear from, each once
     * @return the gathering; close it to unsubscribe
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     */
    Gathering gathering(Collection<String> channels) throws InterruptedException;

    /**
     * Subscribes, waits for one signal at most {@code timeout}, and unsubscribes. Convenient, but a signal
     * sent before this call subscribed is missed: when you trigger the signal yourself, use
     * {@link #waiter(String)} first.
     *
     * @param channel the channel
     * @param timeout how long to wait
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     * @return the signal, or empty on timeout
     */
    Optional<Signal> await(String channel, Duration timeout) throws InterruptedException;

    /**
     * {@link #await(String, Duration)} without a thread waiting: subscribes, and completes with the first signal, or
     * empty when {@code timeout} (counted from this call, subscribing included) passes first; then unsubscribes. The
     * future completes on the client's callback executor ({@link io.coordis.Coordis.Builder#callbackExecutor}), never
     * on a thread the client needs. Cancelling it ends the wait and unsubscribes. Only a client's first subscription
     * waits on the calling thread, for its pub/sub connection to open (at most the command timeout).
     *
     * @param channel the channel
     * @param timeout how long to wait, counted from this call
     * @return the signal, or empty on timeout; fails with a {@link io.coordis.CoordisException} when no node could
     *         be subscribed or the client was closed first
     * @throws IllegalArgumentException for an empty or too long channel, before anything is sent
     */
    CompletableFuture<Optional<Signal>> awaitAsync(String channel, Duration timeout);

    /**
     * Delivers every signal on {@code channels} to {@code listener} until the subscription is closed.
     * Blocks until Redis confirmed the subscription.
     *
     * @param channels the channels
     * @param listener called with each signal, on the client's callback executor
     * @return the subscription; close it to stop
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     */
    Subscription listen(Collection<String> channels, SignalListener listener) throws InterruptedException;

    /**
     * Like {@link #listen(Collection, SignalListener)} for a glob {@code pattern}.
     *
     * @param pattern  a glob pattern of channels
     * @param listener called with each signal, on the client's callback executor
     * @return the subscription; close it to stop
     * @throws InterruptedException when interrupted meanwhile (nothing stays subscribed)
     */
    Subscription listenToPattern(String pattern, SignalListener listener) throws InterruptedException;

    /**
     * The latched event {@code name}: signals stay recorded for {@code ttl}.
     *
     * @param name the event's name, also its channel
     * @param ttl  how long a signal stays recorded
     * @return the event
     * @throws IllegalArgumentException for an empty or too long name, or a TTL under 1 ms or above
     *                                  {@link Event#MAX_TTL}
     */
    Event event(String name, Duration ttl);
}
