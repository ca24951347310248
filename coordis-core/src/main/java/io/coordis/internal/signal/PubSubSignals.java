package io.coordis.internal.signal;

import io.coordis.CoordisException;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Failures;
import io.coordis.internal.Keys;
import io.coordis.internal.Outages;
import io.coordis.internal.Timer;
import io.coordis.internal.Utf8;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.Replies;
import io.coordis.signal.Event;
import io.coordis.signal.Gathering;
import io.coordis.signal.Signal;
import io.coordis.signal.SignalListener;
import io.coordis.signal.Signals;
import io.coordis.signal.Subscription;
import io.coordis.signal.Waiter;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * {@link Signals} over plain Redis pub/sub: publishes on the master, subscribes on the master and its
 * replicas; unicast with {@code signal-one.lua}, latched events with {@code event-set.lua}. Obtained
 * through {@code Coordis.signals()}, which builds it with {@link #over}. Thread-safe.
 */
public final class PubSubSignals implements Signals {
    static final LuaScript SIGNAL_ONE = LuaScript.load(PubSubSignals.class, "signal-one.lua");
    static final LuaScript EVENT_SET = LuaScript.load(PubSubSignals.class, "event-set.lua");

    private final RedisNode master;
    private final List<RedisNode> nodes;
    private final List<String> addresses;
    private final Namespace namespace;
    private final Timer timer;
    private final int maxDataBytes;
    private final Telemetry telemetry;

    private PubSubSignals(RedisNode master, List<RedisNode> replicas, Namespace namespace, Timer timer,
                          int maxDataBytes, Telemetry telemetry) {
        this.master = master;
        this.namespace = namespace;
        List<RedisNode> all = new ArrayList<>();
        all.add(master);
        all.addAll(replicas);
        this.nodes = List.copyOf(all);
        this.addresses = nodes.stream().map(RedisNode::address).toList();
        this.timer = timer;
        this.maxDataBytes = maxDataBytes;
        this.telemetry = telemetry;
    }

    /**
     * Signals published on {@code master} and heard on it and on {@code replicas} (may be empty), refusing
     * data over {@code maxDataBytes}, on channels (and event keys) in {@code namespace},
     * which the caller's names and the channels handed back leave out, reporting to {@code telemetry}, with deadlines
     * on {@code timer}. For {@link io.coordis.Coordis}; the nodes stay owned by the caller.
     */
    public static PubSubSignals over(RedisNode master, List<RedisNode> replicas, Namespace namespace, Timer timer,
                              int maxDataBytes, Telemetry telemetry) {
        return new PubSubSignals(Objects.requireNonNull(master, "master"), List.copyOf(replicas),
                Objects.requireNonNull(namespace, "namespace"),
                Objects.requireNonNull(timer, "timer"), maxDataBytes, Objects.requireNonNull(telemetry, "telemetry"));
    }

    @Override
    public long signal(String channel, String data) {
        requireName(channel, "channel");
        requireData(data, "channel", channel);
        try {
            long receivers = master.awaitUninterruptibly(master.publish(namespace.channel(channel), data),
                    master.commandTimeout());
            telemetry.published(channel, receivers);
            return receivers;
        } catch (CoordisException e) {
            throw Failures.about(Failures.object("channel", channel), e);
        }
    }

    @Override
    public long signalOne(String channel, String data) {
        requireName(channel, "channel");
        requireData(data, "unicast channel", channel);
        int draw = ThreadLocalRandom.current().nextInt(Integer.MAX_VALUE);
        try {
            long receivers;
            if (master.isCluster()) {
                // PUBSUB CHANNELS sees one node only: the waiters of a cluster are gathered from every node
                receivers = master.awaitUninterruptibly(master.publishToOneSubscriber(namespace.unicast(channel),
                        draw, data), master.commandTimeout().multipliedBy(2));
            } else {
                String pick = Integer.toString(draw);
                Object reply = master.awaitUninterruptibly(master.eval(SIGNAL_ONE, List.of(),
                        List.of(namespace.unicast(channel), pick, data, namespace.channel(channel))),
                        master.commandTimeout());
                receivers = Replies.number(Replies.list(reply, 1, SIGNAL_ONE, master.address()), 0, SIGNAL_ONE,
                        master.address());
            }
            telemetry.published(channel, receivers);
            return receivers;
        } catch (CoordisException e) {
            throw Failures.about(Failures.object("unicast channel", channel), e);
        }
    }

    /**
     * Refuses {@code data} larger than the client's maximum signal size before anything is sent.
     *
     * @throws IllegalArgumentException naming the object, the size and the limit
     */
    void requireData(String data, String what, String name) {
        Objects.requireNonNull(data, "data must not be null");
        if (data.length() <= maxDataBytes / 3) {
            return; // at most 3 bytes per char: small enough without counting
        }
        long bytes = Utf8.length(data);
        if (bytes > maxDataBytes) {
            throw new IllegalArgumentException("signal for " + what + " '" + name + "' is " + bytes
                    + " bytes in UTF-8, over the maximum of " + maxDataBytes + " (Coordis.Builder.maxSignalBytes); "
                    + "nothing was sent");
        }
    }

    @Override
    public Waiter waiter(String channel) throws InterruptedException {
        return waiterForAny(List.of(requireName(channel, "channel")));
    }

    @Override
    public Waiter waiterForAny(Collection<String> channels) throws InterruptedException {
        return oneShot(names(channels), false, null);
    }

    @Override
    public Waiter waiterForPattern(String pattern) throws InterruptedException {
        return oneShot(List.of(requireName(pattern, "pattern")), true, null);
    }

    @Override
    public Waiter unicastWaiter(String channel) throws InterruptedException {
        return oneShot(List.of(requireName(channel, "channel") + UUID.randomUUID()), false, null);
    }

    @Override
    public Gathering gathering(Collection<String> channels) throws InterruptedException {
        List<String> names = names(channels);
        AllOf all = new AllOf(names, timer);
        all.attach(open(names, false, all, objectOf(names, false)));
        return all;
    }

    /**
     * {@inheritDoc} A subscription that cannot be made because Redis is away for a while is tried again while the
     * timeout lasts ({@link Outages}); once subscribed, a connection lost meanwhile is re-subscribed and reported as
     * a gap, as always.
     */
    @Override
    public Optional<Signal> await(String channel, Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout must not be null");
        return Outages.retrying(timer.ticker(), timeout, left -> awaitOnce(channel, left));
    }

    private Optional<Signal> awaitOnce(String channel, Duration timeout) throws InterruptedException {
        CompletableFuture<Optional<Signal>> waiting = awaitAsync(channel, timeout);
        try {
            return waiting.get();
        } catch (InterruptedException e) {
            waiting.cancel(true);
            throw e;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof InterruptedException i) {
                Thread.interrupted(); // interrupted while the pub/sub connection opened: told by the exception
                throw i;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    @Override
    public CompletableFuture<Optional<Signal>> awaitAsync(String channel, Duration timeout) {
        List<String> names = List.of(requireName(channel, "channel"));
        Objects.requireNonNull(timeout, "timeout must not be null");
        OneShot w = new OneShot(names, null, timer);
        CompletableFuture<Optional<Signal>> out = new CompletableFuture<>();
        // from the call, not from the confirmation: the deadline covers subscribing too
        CompletableFuture<Optional<Signal>> waiting = w.awaitAsync(Durations.saturatedNanos(timeout) <= 0
                ? Duration.ofNanos(1) : timeout);
        waiting.whenComplete((v, f) -> {
            if (f == null) {
                out.complete(v);
            } else {
                out.completeExceptionally(f instanceof CompletionException && f.getCause() != null ? f.getCause() : f);
            }
        });
        out.whenComplete((v, f) -> {
            waiting.cancel(false);
            w.close(); // unsubscribes, also when the subscription is confirmed after this
        });
        CompletableFuture<Fanout> opening;
        try {
            opening = Fanout.openAsync(nodes, namespace, names, false, w, telemetry, timer);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.completeExceptionally(e);
            return out;
        }
        opening.whenComplete((fanout, failure) -> {
            if (fanout != null) {
                w.attach(fanout);
            } else if (!opening.isCancelled()) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                        ? failure.getCause() : failure;
                timer.complete(out, null, cause instanceof CoordisException c
                        ? Failures.about(objectOf(names, false), c) : cause);
            }
        });
        out.whenComplete((v, f) -> opening.cancel(false));
        return out;
    }

    @Override
    public Subscription listen(Collection<String> channels, SignalListener listener) throws InterruptedException {
        return listening(names(channels), false, listener);
    }

    @Override
    public Subscription listenToPattern(String pattern, SignalListener listener) throws InterruptedException {
        return listening(List.of(requireName(pattern, "pattern")), true, listener);
    }

    @Override
    public Event event(String name, Duration ttl) {
        return new LatchedEvent(this, requireName(name, "event name"),
                Durations.between(ttl, Duration.ofMillis(1), Event.MAX_TTL, "event TTL"));
    }

    private Subscription listening(List<String> names, boolean pattern, SignalListener listener)
            throws InterruptedException {
        Objects.requireNonNull(listener, "listener must not be null");
        Listening l = new Listening(listener, addresses, timer.ticker());
        l.attach(open(names, pattern, l, objectOf(names, pattern)));
        return l;
    }

    /** A waiter subscribed on every node; with {@code recheck}, run after confirmation and after each gap. */
    OneShot oneShot(List<String> names, boolean pattern, Consumer<OneShot> recheck) throws InterruptedException {
        return oneShot(names, pattern, recheck, objectOf(names, pattern));
    }

    /** Like {@link #oneShot(List, boolean, Consumer)}, a failure naming {@code object} (e.g. an event). */
    OneShot oneShot(List<String> names, boolean pattern, Consumer<OneShot> recheck, String object)
            throws InterruptedException {
        OneShot w = new OneShot(names, recheck, timer);
        w.attach(open(names, pattern, w, object));
        return w;
    }

    /** {@link Fanout#open} on this client's nodes; a failure names {@code object}. */
    private Fanout open(List<String> names, boolean pattern, Fanout.Sink sink, String object)
            throws InterruptedException {
        try {
            return Fanout.open(nodes, namespace, names, pattern, sink, telemetry, timer);
        } catch (CoordisException e) {
            throw Failures.about(object, e);
        }
    }

    /** How failures name the channels or pattern of a subscription: {@code channels 'a', 'b'}. */
    private static String objectOf(List<String> names, boolean pattern) {
        String shown = "'" + String.join("', '", names.subList(0, Math.min(3, names.size()))) + "'"
                + (names.size() > 3 ? " and " + (names.size() - 3) + " more" : "");
        return (pattern ? "pattern " : names.size() == 1 ? "channel " : "channels ") + shown;
    }

    /** The namespace of this client's channels and event keys. */
    Namespace namespace() {
        return namespace;
    }

    RedisNode master() {
        return master;
    }

    /**
     * {@code GET key} from the master, or when it fails from the first replica that answers: a latched
     * event must be readable while only replicas are reachable. Does not block.
     */
    CompletableFuture<String> read(String key) {
        return read(key, 0);
    }

    private CompletableFuture<String> read(String key, int from) {
        RedisNode node = nodes.get(from);
        CompletableFuture<String> sent = node.within(node.get(key), node.commandTimeout());
        if (from + 1 == nodes.size()) {
            return sent;
        }
        return sent.handle((v, f) -> f == null ? CompletableFuture.completedFuture(v) : read(key, from + 1)
                .handle((v2, f2) -> {
                    if (f2 != null) {
                        CoordisException first = master.translate(f);
                        first.addSuppressed(f2);
                        throw first;
                    }
                    return v2;
                })).thenCompose(s -> s);
    }

    private static List<String> names(Collection<String> channels) {
        Objects.requireNonNull(channels, "channels must not be null");
        if (channels.isEmpty()) {
            throw new IllegalArgumentException("at least one channel is required");
        }
        LinkedHashSet<String> unique = new LinkedHashSet<>();
        for (String c : channels) {
            unique.add(requireName(c, "channel"));
        }
        return List.copyOf(unique);
    }

    static String requireName(String name, String what) {
        Objects.requireNonNull(name, what + " must not be null");
        if (name.isEmpty()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
        return Keys.requireShort(what, name);
    }

    @Override
    public String toString() {
        return "Signals[" + String.join(",", addresses) + "]";
    }
}
