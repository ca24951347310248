package io.coordis.internal.redis;

import io.coordis.CoordisException;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One Redis node as a lock, a semaphore or an election talks to it: its address and command timeout, Lua scripts,
 * the few plain commands those primitives send, pub/sub on its channels, and deadlines on what it answers. In the
 * spirit of redsync's {@code Conn}: everything a primitive needs of one node, and nothing of how the node was opened,
 * inspected or closed; {@link RedisNode} is the implementation. Nothing here blocks but {@link #subscribe} and the
 * waits. Implementations are thread-safe.
 *
 * <p>Results leave as plain Java values ({@code Long}, {@code String}, {@code List<Object>} or {@code null}) and every
 * failure as a {@link CoordisException} naming this node.
 */
public interface Node {

    /** {@code host:port} of this node, as votes and failures name it. */
    String address();

    /** How long a command waits for its reply. */
    Duration commandTimeout();

    /**
     * Runs {@code script} on this node (see {@link ScriptRunner}), with the command timeout as its deadline. Does not
     * block.
     */
    CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args);

    /** {@code GET key}. */
    CompletableFuture<String> get(String key);

    /** {@code SET key value}. */
    CompletableFuture<String> set(String key, String value);

    /** {@code SET key value KEEPTTL}: a key that expires keeps its expiry. */
    CompletableFuture<String> setKeepingTtl(String key, String value);

    /** {@code PUBLISH channel message}, answering how many subscribers received it. */
    CompletableFuture<Long> publish(String channel, String message);

    /** {@code INFO section} as a map of its fields. */
    CompletableFuture<Map<String, String>> info(String section);

    /**
     * A connection of its own for a write that replicas must acknowledge and its {@code WAIT} (see
     * {@link ReplicatedWrite}); close it once done. Does not block.
     */
    ReplicatedWrite<String> replicatedWrite();

    /** The node that serves {@code key}, as {@code host:port} (on a cluster, its slot's master). For messages. */
    String addressFor(String key);

    /**
     * Registers {@code listener} on {@code names} (channels, or glob patterns when {@code patterns}) and blocks until
     * Redis confirmed them (at most the command timeout). Messages arrive on an I/O thread: listeners must be quick.
     *
     * @throws CoordisException     when the subscription fails
     * @throws InterruptedException when interrupted while waiting (nothing stays registered)
     */
    ChannelRegistration subscribe(Collection<String> names, boolean patterns, PubSubListener listener)
            throws InterruptedException;

    /**
     * Like {@link #subscribe}, and never blocks: the registration's {@link ChannelRegistration#ready()} completes
     * when Redis confirmed, or fails naming this node. For steps on a reply's I/O thread or the client's timer.
     */
    ChannelRegistration subscribeLater(Collection<String> names, boolean patterns, PubSubListener listener);

    /**
     * {@code sent} (a future this node returned) limited to {@code timeout}: past it, the result fails with
     * {@link #timeoutFailure} and the connection is given up as by {@link #timedOut}. Does not block.
     */
    <T> CompletableFuture<T> within(CompletableFuture<T> sent, Duration timeout);

    /**
     * Treats {@code sent} (a future this node returned, still unanswered) as timed out: the connection it went out on
     * is replaced, since a late reply could otherwise be taken for the answer to a later command. Does not block.
     */
    void timedOut(CompletableFuture<?> sent);

    /** Translates any failure into the Coordis exception family, naming this node. */
    CoordisException translate(Throwable failure);

    /** The failure that reports no reply within {@code timeout}, naming this node. */
    CoordisException timeoutFailure(Duration timeout);

    /**
     * Waits for {@code future} at most {@code timeout}, turning a failure into a {@link CoordisException} naming this
     * node; a timeout counts as one of the command (see {@link #timedOut}).
     */
    <T> T await(CompletionStage<T> future, Duration timeout) throws InterruptedException;

    /**
     * Like {@link #await}, but keeps waiting through interrupts, restoring the interrupt flag afterwards; the deadline
     * is read on the client's timer.
     */
    <T> T awaitUninterruptibly(CompletionStage<T> future, Duration timeout);
}
