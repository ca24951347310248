package io.coordis.internal.queue;

import io.coordis.CoordisException;
import io.coordis.Outcome;
import io.coordis.Telemetry;
import io.coordis.internal.Failures;
import io.coordis.internal.Timer;
import io.coordis.internal.Tokens;
import io.coordis.internal.redis.BlockingConnection;
import io.coordis.internal.redis.ListCommands;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.ReplicatedWrite;
import io.coordis.internal.redis.Replies;
import io.coordis.queue.Consumer;
import io.coordis.queue.Order;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.QueueStats;
import io.coordis.queue.ReliableQueue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntPredicate;

/**
 * {@link ReliableQueue} with per-consumer processing slots and heartbeats; see the interface for the
 * design. This class holds the queue-wide operations (push, settle by id, sweep, stats through {@link
 * SlotQueueStats}); {@link SlotConsumer} the per-consumer ones.
 */
final class SlotQueue extends NamedQueue implements ReliableQueue {
    static final LuaScript PUSH = LuaScript.load(SlotQueue.class, "push.lua");
    /** Ack, nack and take, alone or together (settle deliveries, then hand slots their next message). */
    static final LuaScript SETTLE = LuaScript.load(SlotQueue.class, "settle.lua");
    static final LuaScript BEAT = LuaScript.load(SlotQueue.class, "beat.lua");
    static final LuaScript SWEEP = LuaScript.load(SlotQueue.class, "sweep.lua");
    static final LuaScript PROMOTE = LuaScript.load(SlotQueue.class, "promote.lua");
    static final LuaScript REQUEUE_DEAD = LuaScript.load(SlotQueue.class, "requeue-dead.lua");
    static final LuaScript OLDEST = LuaScript.load(SlotQueue.class, "oldest.lua");
    /** Pushes are sent in scripts of at most this many messages. */
    static final int PUSH_CHUNK = 1000;
    private static final int PROMOTE_LIMIT = 1000;

    final QueueKeys keys;
    /** The client's timer: the deadlines of takes, the consumers' heartbeats and sweeps. */
    final Timer timer;
    /** The client's: settled and swept messages. */
    final Telemetry telemetry;

    /** For {@link io.coordis.Coordis}; not part of the API. */
    SlotQueue(ListCommands lists, Namespace namespace, String name, QueueOptions options, Timer timer,
              Telemetry telemetry) {
        super(lists, name, Objects.requireNonNull(options, "options must not be null"));
        this.keys = new QueueKeys(namespace.key(name));
        this.timer = timer;
        this.telemetry = telemetry;
    }

    @Override
    public QueueOptions options() {
        return options;
    }

    @Override
    String key() {
        return keys.queue;
    }

    @Override
    long pushChecked(List<byte[]> checked, ReplicatedWrite<byte[]> on) throws InterruptedException {
        long length = 0;
        List<String> pushKeys = List.of(keys.queue, keys.enqueued);
        for (int from = 0; from < checked.size() || from == 0; from += PUSH_CHUNK) {
            List<byte[]> chunk = checked.subList(from, Math.min(checked.size(), from + PUSH_CHUNK));
            Object reply = Payloads.await(lists, on == null ? lists.eval(PUSH, pushKeys, chunk)
                    : on.eval(PUSH, pushKeys, chunk), name, keys.queue);
            length = Replies.number(Replies.list(reply, 1, PUSH, lists.address()), 0, PUSH, lists.address());
            if (checked.isEmpty()) {
                break;
            }
        }
        return length;
    }

    @Override
    public Consumer consumer() throws InterruptedException {
        return SlotConsumer.start(this);
    }

    @Override
    public Outcome ack(String deliveryId) throws InterruptedException {
        Outcome o = settle(DeliveryRef.parse(deliveryId), true, Duration.ZERO).outcome();
        telemetry.settled(name, o, null);
        return o;
    }

    @Override
    public Outcome nack(String deliveryId, Duration delay) throws InterruptedException {
        if (delay == null || delay.isNegative()) {
            throw new IllegalArgumentException("nack delay must be zero or positive, was " + delay);
        }
        Outcome o = settle(DeliveryRef.parse(deliveryId), false, delay).outcome();
        telemetry.settled(name, o, null);
        return o;
    }

    /** Settles one delivery: settle.lua for its slot, taking nothing; {@code failures} as {@link Settle} has it. */
    Settled settle(DeliveryRef ref, boolean ack, Duration delay, long failures) throws InterruptedException {
        return settleAndTake(ref.consumer(), List.of(new Settle(ref, ack, delay, failures)), List.of(), LOOK, null)
                .settled().get(0);
    }

    /** Settles one delivery known only by its id. */
    private Settled settle(DeliveryRef ref, boolean ack, Duration delay) throws InterruptedException {
        return settle(ref, ack, delay, Settle.UNKNOWN);
    }

    /** Acks, all of one consumer, in one script. */
    List<Settled> acks(List<Settle> acks) throws InterruptedException {
        if (acks.isEmpty()) {
            return List.of();
        }
        String consumer = acks.get(0).ref().consumer();
        for (Settle s : acks) {
            if (!s.ref().consumer().equals(consumer)) {
                throw new IllegalArgumentException("deliveries of different consumers cannot be acked together: "
                        + s.ref() + " and " + acks.get(0).ref());
            }
        }
        return settleAndTake(consumer, acks, List.of(), LOOK, null).settled();
    }

    /**
     * One delivery to settle in a settle.lua call: ack, or nack with a delay; {@code failures} is the payload's
     * failed deliveries as the take reported them, {@link #UNKNOWN} when it did not (an ack of a message known to
     * have none leaves the counts alone).
     */
    record Settle(DeliveryRef ref, boolean ack, Duration delay, long failures) {
        static final long UNKNOWN = -1;

        static Settle ack(DeliveryRef ref, long failures) {
            return new Settle(ref, true, Duration.ZERO, failures);
        }
    }

    /** A message handed to a take slot: its payload ({@code null} when the queue was empty) and failed deliveries. */
    record Taken(byte[] payload, long failures) {
    }

    /** What one settle.lua call answered: per settled delivery, then per take slot, in the order given. */
    record Answer(List<Settled> settled, List<Taken> taken) {
    }

    /**
     * Runs settle.lua for {@code consumer}: settles {@code settles} (all of that consumer), then hands each of its
     * {@code takeSlots} a message, in one script, looking first into those that {@code look} says may hold one (a
     * slot not settled out by the same call); on {@code via} (a connection the caller owns) when not {@code null},
     * else on the shared connection.
     */
    Answer settleAndTake(String consumer, List<Settle> settles, List<Integer> takeSlots, IntPredicate look,
                         BlockingConnection via) throws InterruptedException {
        List<String> k = settleKeys(consumer, settles, takeSlots);
        List<byte[]> a = settleArgs(settles, takeSlots, look);
        Object raw;
        if (via != null) {
            try {
                raw = via.eval(SETTLE, k, a);
            } catch (CoordisException e) {
                throw Payloads.named(lists, e, name, keys.queue);
            }
        } else {
            raw = Payloads.await(lists, lists.eval(SETTLE, k, a), name, keys.queue);
        }
        return answer(raw, settles, takeSlots.size());
    }

    /**
     * {@link #settleAndTake} on the shared connection, without waiting: completes on the reply's thread; a failure
     * names the queue.
     */
    CompletableFuture<Answer> settleAndTakeAsync(String consumer, List<Settle> settles, List<Integer> takeSlots,
                                                IntPredicate look) {
        return lists.eval(SETTLE, settleKeys(consumer, settles, takeSlots), settleArgs(settles, takeSlots, look))
                .handle((raw, f) -> {
                    if (f != null) {
                        throw Failures.about(Failures.object("queue", name), lists.translate(f));
                    }
                    return answer(raw, settles, takeSlots.size());
                });
    }

    private List<String> settleKeys(String consumer, List<Settle> settles, List<Integer> takeSlots) {
        List<String> k = new ArrayList<>(8 + settles.size() + takeSlots.size());
        k.addAll(List.of(keys.queue, keys.attempts, keys.settled(consumer), keys.enqueued, keys.dead, keys.delayed,
                keys.delayedData, keys.settledCount));
        for (Settle s : settles) {
            k.add(keys.slot(consumer, s.ref().slot()));
        }
        for (int slot : takeSlots) {
            k.add(keys.slot(consumer, slot));
        }
        return k;
    }

    private List<byte[]> settleArgs(List<Settle> settles, List<Integer> takeSlots, IntPredicate look) {
        List<byte[]> a = new ArrayList<>(3 + 6 * settles.size() + takeSlots.size());
        a.add(bytes(side(options.order())));
        a.add(bytes(options.maxAttempts()));
        a.add(bytes(settles.size()));
        for (Settle s : settles) {
            a.add(bytes(s.ref().slot()));
            a.add(bytes(s.ref().number()));
            a.add(s.ack() ? ACK_MARK : NACK_MARK);
            a.add(bytes(s.delay().toMillis()));
            a.add(s.ack() || s.delay().isZero() ? NO_TOKEN : bytes(Tokens.next()));
            a.add(s.failures() == 0 ? NONE : s.failures() < 0 ? UNKNOWN : bytes(s.failures()));
        }
        for (int slot : takeSlots) {
            a.add(look.test(slot) ? LOOK_MARK : EMPTY_MARK);
        }
        return a;
    }

    private Answer answer(Object raw, List<Settle> settles, int takeSlots) {
        List<?> reply = Replies.list(raw, 2 * (settles.size() + takeSlots), SETTLE, lists.address());
        List<Settled> settled = new ArrayList<>(settles.size());
        for (int i = 0; i < settles.size(); i++) {
            long code = Replies.number(reply, 2 * i, SETTLE, lists.address());
            long failures = Replies.number(reply, 2 * i + 1, SETTLE, lists.address());
            settled.add(settles.get(i).ack() ? acked(code, failures) : nacked(code, failures));
        }
        List<Taken> taken = new ArrayList<>(takeSlots);
        for (int i = settles.size(); i < settles.size() + takeSlots; i++) {
            taken.add(reply.get(2 * i) instanceof byte[] payload
                    ? new Taken(payload, Replies.number(reply, 2 * i + 1, SETTLE, lists.address()))
                    : new Taken(null, 0));
        }
        return new Answer(settled, taken);
    }

    /**
     * Puts back what {@code slot} of {@code consumer} holds, at the end consumers take from next, counting no
     * failed delivery (sweep.lua's 'return' mode): for a take cancelled after it moved a message. Does not block;
     * answers how many messages went back.
     */
    CompletableFuture<Integer> putBack(String consumer, int slot) {
        List<String> k = new ArrayList<>(List.of(keys.heartbeat(consumer), keys.registry, keys.queue, keys.attempts,
                keys.dead, keys.enqueued, keys.settled(consumer), keys.settledCount, keys.slot(consumer, slot)));
        return lists.eval(SWEEP, k, sweepArgs(consumer, "return", false)).thenApply(raw -> (int) Replies.number(
                Replies.list(raw, 2, SWEEP, lists.address()), 0, SWEEP, lists.address()));
    }

    private static final byte[] ACK_MARK = bytes("A");
    private static final byte[] NACK_MARK = bytes("N");
    private static final byte[] NO_TOKEN = bytes("-");
    private static final byte[] NONE = bytes(0);
    private static final byte[] LOOK_MARK = bytes(1);
    private static final byte[] EMPTY_MARK = bytes(0);
    /** Every take slot may hold a message (left by a move whose reply was lost): look into each. */
    static final IntPredicate LOOK = slot -> true;
    private static final byte[] UNKNOWN = bytes(Settle.UNKNOWN);

    /** An ack's code and count: the failed deliveries before it when it removed the message. */
    private static Settled acked(long code, long failuresBefore) {
        return code == 1 ? new Settled(Outcome.ACKED, failuresBefore)
                : Settled.of(code == 2 ? Outcome.ALREADY_SETTLED : Outcome.GONE);
    }

    /** A nack's code and count: the failed deliveries including this one when it saw the message. */
    private static Settled nacked(long code, long failures) {
        Outcome o = switch ((int) code) {
            case 1 -> Outcome.REQUEUED;
            case 2 -> Outcome.ALREADY_SETTLED;
            case 3 -> Outcome.DEAD_LETTERED;
            case 4 -> Outcome.DELAYED;
            default -> Outcome.GONE;
        };
        boolean seen = o != Outcome.ALREADY_SETTLED && o != Outcome.GONE;
        return seen ? new Settled(o, failures - 1) : Settled.of(o);
    }

    @Override
    public int sweep() throws InterruptedException {
        return Payloads.await(lists, sweepAsync(), name, keys.queue);
    }

    /**
     * {@link #sweep}, as commands that never block a thread: the registry, then for every registered consumer at
     * once whether its heartbeat expired and, for those whose did, sweep.lua, then the delayed messages that are
     * due. A few round trips however many consumers are registered (dead ones stay a minute).
     */
    CompletableFuture<Integer> sweepAsync() {
        return lists.timeMillis(keys.queue).thenCompose(now -> lists.hgetall(keys.registry).thenCompose(registry ->
                        releaseDead(now, registry)))
                .thenCompose(moved -> lists.eval(PROMOTE, List.of(keys.delayed, keys.delayedData, keys.queue),
                        List.of(bytes(side(options.order())), bytes(PROMOTE_LIMIT))).thenApply(promoted -> moved));
    }

    /**
     * Releases the slots of every consumer in {@code registry} whose heartbeat expired, all at once (sweep.lua
     * checks the heartbeat again, atomically); answers how many messages moved.
     */
    private CompletableFuture<Integer> releaseDead(long now, Map<byte[], byte[]> registry) {
        List<CompletableFuture<Integer>> moves = new ArrayList<>();
        for (Map.Entry<byte[], byte[]> e : registry.entrySet()) {
            String id = ListCommands.text(e.getKey());
            QueueLayout.Registration reg = QueueLayout.registration(ListCommands.text(e.getValue())).orElse(null);
            if (reg == null) {
                continue;
            }
            boolean forget = now - reg.lastBeatMillis() > reg.retentionMillis();
            moves.add(lists.exists(keys.heartbeat(id)).thenCompose(alive -> alive > 0
                    ? CompletableFuture.completedFuture(0)
                    : lists.eval(SWEEP, sweepKeys(id, reg.slots()), sweepArgs(id, "dead", forget)).thenApply(this::swept)));
        }
        return CompletableFuture.allOf(moves.toArray(CompletableFuture[]::new))
                .thenApply(all -> moves.stream().mapToInt(CompletableFuture::join).sum());
    }

    /** Runs sweep.lua for one consumer; answers the messages moved out of its slots, or 0 if it is alive. */
    int release(String consumer, int slots, String mode, boolean forget) throws InterruptedException {
        return swept(Payloads.await(lists, lists.eval(SWEEP, sweepKeys(consumer, slots), sweepArgs(consumer, mode, forget)),
                name, keys.queue));
    }

    private List<String> sweepKeys(String consumer, int slots) {
        List<String> k = new ArrayList<>(List.of(keys.heartbeat(consumer), keys.registry, keys.queue, keys.attempts,
                keys.dead, keys.enqueued, keys.settled(consumer), keys.settledCount));
        k.addAll(keys.slots(consumer, slots));
        return k;
    }

    private List<byte[]> sweepArgs(String consumer, String mode, boolean forget) {
        return List.of(ListCommands.bytes(consumer), bytes(options.maxAttempts()), bytes(side(options.order())),
                bytes(forget ? "1" : "0"), bytes(mode));
    }

    /** sweep.lua's reply: the messages it moved out of the slots (requeued and dead-lettered). */
    private int swept(Object raw) {
        List<?> reply = Replies.list(raw, 2, SWEEP, lists.address());
        long requeued = Replies.number(reply, 0, SWEEP, lists.address());
        if (requeued < 0) {
            return 0;
        }
        long dead = Replies.number(reply, 1, SWEEP, lists.address());
        if (requeued + dead > 0) {
            telemetry.swept(name, (int) requeued, (int) dead);
        }
        return (int) (requeued + dead);
    }

    @Override
    public int requeueDead(int max) throws InterruptedException {
        if (max < 1) {
            throw new IllegalArgumentException("requeue count must be at least 1, was " + max);
        }
        Object reply = Payloads.await(lists, lists.eval(REQUEUE_DEAD, List.of(keys.dead, keys.queue),
                List.of(bytes(max))), name, keys.queue);
        return (int) Replies.number(Replies.list(reply, 1, REQUEUE_DEAD, lists.address()), 0, REQUEUE_DEAD,
                lists.address());
    }

    @Override
    public QueueStats stats() throws InterruptedException {
        return SlotQueueStats.read(lists, keys, name);
    }

    static byte[] bytes(Object value) {
        return String.valueOf(value).getBytes(StandardCharsets.UTF_8);
    }

    /** Lower-case hex SHA-1, as Lua's {@code redis.sha1hex} computes it. */
    static String sha1(byte[] payload) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(payload));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "ReliableQueue[" + name + "]";
    }

    /** The end of the list consumers take from under {@code order}, as settle.lua and sweep.lua name it. */
    private static String side(Order order) {
        return order.right() ? "R" : "L";
    }
}
