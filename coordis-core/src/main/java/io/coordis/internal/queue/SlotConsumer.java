package io.coordis.internal.queue;

import io.coordis.CoordisException;
import io.coordis.Outcome;
import io.coordis.Telemetry;
import io.coordis.internal.Durations;
import io.coordis.internal.Outages;
import io.coordis.internal.Tokens;
import io.coordis.internal.redis.BlockingConnection;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer with {@code slots} processing slots. Free slots wait in a local {@link SlotPool}; a take borrows some,
 * fills them with {@code settle.lua} (which first hands out anything already in a slot), and, when the queue
 * is empty, blocks with {@code BLMOVE} into the first borrowed slot on that slot's own connection, then
 * runs {@code settle.lua} again to hand out the slot's rightmost message. A slot returns to the pool when its
 * delivery is settled.
 *
 * <p>The heartbeat and the sweeps run on the client's timer ({@link Upkeep}). A take whose last confirmed
 * heartbeat is older than two thirds of the TTL beats first, synchronously, so it never moves a message into
 * slots that sweepers no longer know about.
 */
final class SlotConsumer implements Consumer, SlotDelivery.Settler {
    private static final Logger log = LoggerFactory.getLogger(SlotConsumer.class);

    private final SlotQueue queue;
    private final String id;
    private final int slotCount;
    private final long ttlNanos;
    private final long[] numbers;
    private final SlotConnections connections;
    private final SlotPool pool;
    /** settle.lua found the queue empty last time it ran: consumers keep up, so takes block first. */
    private volatile boolean drained;
    private final AtomicLong directTakes = new AtomicLong();
    private static final int PROBE_EVERY = 16;
    /** Takes hold it shared; close holds it exclusively, so no take moves a message after close released. */
    private final ReadWriteLock closing = new ReentrantReadWriteLock();
    private final Upkeep upkeep;

    private SlotConsumer(SlotQueue queue) {
        this.queue = queue;
        this.id = Tokens.next().substring(0, 12);
        this.slotCount = queue.options.slots();
        this.ttlNanos = queue.options.heartbeatTtl().toNanos();
        this.numbers = new long[slotCount];
        this.pool = new SlotPool(slotCount, queue.timer, "consumer " + id + " of queue '" + queue.name() + "'");
        this.connections = new SlotConnections(queue.lists, pool, slotCount);
        this.upkeep = new Upkeep(queue, id, slotCount);
    }

    static SlotConsumer start(SlotQueue queue) throws InterruptedException {
        SlotConsumer c = new SlotConsumer(queue);
        c.upkeep.start();
        return c;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public Optional<Delivery> take(Duration wait) throws InterruptedException {
        return take(1, wait).stream().findFirst();
    }

    @Override
    public List<Delivery> take(int max, Duration wait) throws InterruptedException {
        if (max < 1) {
            throw new IllegalArgumentException("take count must be at least 1, was " + max);
        }
        if (max > slotCount) {
            throw new IllegalArgumentException("take count " + max + " is over this consumer's " + slotCount
                    + " slots (QueueOptions.withSlots)");
        }
        long deadline = Durations.saturatedAdd(queue.timer.now(), Math.max(0, Durations.saturatedNanos(wait)));
        List<Integer> slots = pool.borrow(max, deadline);
        if (slots.isEmpty()) {
            return List.of();
        }
        List<Delivery> handed = new ArrayList<>();
        boolean clean = false;
        closing.readLock().lock();
        try {
            requireOpen();
            // The queue was found empty lately (consumers keep up), one known-empty slot and time to wait: BLMOVE
            // straight away, one round trip per message as it arrives. Otherwise, and every PROBE_EVERY takes to
            // notice a backlog, settle.lua first: one round trip that also reads the count and looks into suspect slots.
            boolean[] direct = {drained && slots.size() == 1 && wait.compareTo(Duration.ZERO) > 0
                    && !pool.isSuspect(slots.get(0)) && directTakes.incrementAndGet() % PROBE_EVERY != 0};
            // Redis restarting or failing over: look into the slots again once it may be back (Outages)
            Outages.retrying(queue.timer.ticker(), Duration.ofNanos(Math.max(0, deadline - queue.timer.now())),
                    left -> {
                        requireOpen();
                        boolean first = direct[0];
                        direct[0] = false; // after a failure, settle.lua first
                        takeInto(slots, handed, deadline, first);
                        return handed;
                    });
            clean = true;
            return handed;
        } finally {
            closing.readLock().unlock();
            List<Integer> used = handed.stream().map(d -> ref(d).slot()).toList();
            List<Integer> unused = new ArrayList<>(slots);
            unused.removeAll(used);
            // after a failure or interrupt a slot may hold a moved message: offer it to the next take first
            pool.giveBack(unused, !clean);
        }
    }

    /**
     * Fills {@code handed} from {@code slots}: settle.lua (unless {@code direct}), then while nothing came and
     * time is left before {@code deadline}, a BLMOVE into the first slot and settle.lua again.
     */
    private void takeInto(List<Integer> slots, List<Delivery> handed, long deadline, boolean direct)
            throws InterruptedException {
        boolean settle = !direct;
        while (true) {
            if (upkeep.stale()) {
                upkeep.beatNow();
            }
            if (settle) {
                fill(slots, handed);
            }
            settle = true;
            long left = deadline - queue.timer.now();
            if (!handed.isEmpty() || left <= 0 || moveInto(slots, block(left), handed)) {
                return;
            }
        }
    }

    private Duration block(long leftNanos) {
        return Duration.ofNanos(Math.min(leftNanos, ttlNanos));
    }

    /**
     * BLMOVE into the first of {@code slots} for {@code block}: {@code true} with a delivery in {@code handed} when a
     * message came (or the slot holds one after a failed move), {@code false} when none came.
     *
     * @throws CoordisException when the move failed and the slot holds nothing
     */
    private boolean moveInto(List<Integer> slots, Duration block, List<Delivery> handed) throws InterruptedException {
        int slot = slots.get(0);
        try {
            byte[] moved = connections.open(slot).move(queue.keys.queue, queue.keys.slot(id, slot),
                    queue.options.order().right(), block);
            if (moved != null && slots.size() > 1) {
                pool.suspect(slot); // the next settle.lua hands it out with the other slots' messages
            } else if (moved != null) {
                // the slot was empty, so what BLMOVE moved is its one message; its count is read only if
                // asked for before it is settled (settling answers it)
                handed.add(new SlotDelivery(new DeliveryRef(id, slot, nextNumber(slot)), moved,
                        () -> queue.lists.hgetNumber(queue.keys.attempts, SlotQueue.sha1(moved)),
                        queue.lists.commandTimeout(), queue.timer.now(), this));
                return true;
            }
            return false;
        } catch (CoordisException e) {
            requireOpen();
            pool.suspect(slot); // the move may have happened with its reply lost: hand out what the slot holds
            fill(slots, handed);
            if (handed.isEmpty()) {
                throw Payloads.named(queue.lists, e, queue.name(), queue.keys.queue);
            }
            return true;
        }
    }

    private void requireOpen() {
        if (pool.closed()) {
            throw pool.closedFailure();
        }
    }

    /** Runs settle.lua on {@code slots}, settling nothing (looking into suspect ones), and adds what they got. */
    private void fill(List<Integer> slots, List<Delivery> handed) throws InterruptedException {
        List<Integer> open = new ArrayList<>(slots);
        open.removeAll(handed.stream().map(d -> ref(d).slot()).toList());
        if (open.isEmpty()) {
            return;
        }
        List<SlotQueue.Taken> taken = queue.settleAndTake(id, List.of(), open, pool::lookInto, null).taken();
        pool.looked(open); // empty now, or its message is handed out below
        drained = taken.get(taken.size() - 1).payload() == null; // the last slot got nothing: the queue ran empty
        for (int i = 0; i < open.size(); i++) {
            Delivery d = delivery(open.get(i), taken.get(i));
            if (d != null) {
                handed.add(d);
            }
        }
    }

    /** The delivery of what {@code slot} was handed by settle.lua, or {@code null} when it got nothing. */
    Delivery delivery(int slot, SlotQueue.Taken taken) {
        if (taken.payload() == null) {
            return null;
        }
        return new SlotDelivery(new DeliveryRef(id, slot, nextNumber(slot)), taken.payload(),
                (int) Math.min(Integer.MAX_VALUE, taken.failures() + 1), queue.timer.now(), this);
    }

    long nextNumber(int slot) {
        synchronized (numbers) {
            return ++numbers[slot];
        }
    }

    @Override
    public Settled settle(DeliveryRef ref, boolean ack, Duration delay, long failures) throws InterruptedException {
        Settled o = null;
        if (ack) {
            // Ack on the slot's own connection when it has one: idle while the slot is out, and it keeps the
            // consumers' traffic from queueing in front of the producers' on the shared connection.
            closing.readLock().lock();
            try {
                BlockingConnection own = connections.existing(ref.slot());
                if (own != null) {
                    o = queue.settleAndTake(id, List.of(SlotQueue.Settle.ack(ref, failures)), List.of(),
                            SlotQueue.LOOK, own).settled().get(0);
                }
            } finally {
                closing.readLock().unlock();
            }
        }
        if (o == null) {
            o = queue.settle(ref, ack, delay, failures);
        }
        pool.giveBack(List.of(ref.slot()));
        return o;
    }

    /**
     * Settles the delivery {@code ref} and, in the same script, hands its slot this consumer's next ready message
     * (a delivery like one from {@link #take}: counted, held in the slot, swept if this consumer dies). When the
     * consumer is closed, only settles. On failure the slot stays with the unsettled delivery, marked as possibly
     * holding a moved message, so the take after the delivery is settled looks into it first.
     */
    @Override
    public SlotDelivery.Next settleAndTake(DeliveryRef ref, boolean ack, Duration delay, long failures)
            throws InterruptedException {
        int slot = ref.slot();
        closing.readLock().lock();
        try {
            if (!pool.closed()) {
                if (upkeep.stale()) {
                    upkeep.beatNow();
                }
                // While the queue keeps running empty (consumers keep up), the take part would find nothing and a
                // blocking take follows anyway: settle alone, and look only every PROBE_EVERY settles.
                boolean look = !drained || directTakes.incrementAndGet() % PROBE_EVERY == 0;
                SlotQueue.Answer answer;
                try {
                    answer = queue.settleAndTake(id, List.of(new SlotQueue.Settle(ref, ack, delay, failures)),
                            look ? List.of(slot) : List.of(), SlotQueue.LOOK, connections.existing(slot));
                } catch (RuntimeException | InterruptedException e) {
                    pool.suspect(slot);
                    throw e;
                }
                Delivery next = look ? delivery(slot, answer.taken().get(0)) : null;
                if (look) {
                    drained = next == null;
                }
                if (next == null) {
                    pool.giveBack(List.of(slot));
                }
                return new SlotDelivery.Next(answer.settled().get(0), next, look);
            }
        } finally {
            closing.readLock().unlock();
        }
        return new SlotDelivery.Next(settle(ref, ack, delay, failures), null, false);
    }

    @Override
    public Optional<Delivery> takeNext(Duration wait) throws InterruptedException {
        return take(wait);
    }

    @Override
    public void settled(Outcome outcome, long taken) {
        if (queue.telemetry != Telemetry.NONE) {
            queue.telemetry.settled(queue.name(), outcome, Duration.ofNanos(queue.timer.now() - taken));
        }
    }

    @Override
    public List<Outcome> ack(List<Delivery> deliveries) throws InterruptedException {
        List<Delivery> open = new ArrayList<>();
        for (Delivery d : deliveries) {
            if (!ref(d).consumer().equals(id)) {
                throw new IllegalArgumentException("delivery " + d.id() + " belongs to another consumer than " + id);
            }
            if (d.outcome() == null) {
                open.add(d);
            }
        }
        if (!open.isEmpty()) {
            List<Settled> outcomes = queue.acks(open.stream().map(d -> ((SlotDelivery) d).asAck()).toList());
            for (int i = 0; i < open.size(); i++) {
                Settled o = outcomes.get(i);
                ((SlotDelivery) open.get(i)).record(o);
                pool.giveBack(List.of(ref(open.get(i)).slot()));
            }
        }
        return deliveries.stream().map(Delivery::outcome).toList();
    }

    long ttlNanos() {
        return ttlNanos;
    }

    SlotPool pool() {
        return pool;
    }

    Upkeep upkeep() {
        return upkeep;
    }

    SlotQueue queue() {
        return queue;
    }

    SlotConnections connections() {
        return connections;
    }

    @Override
    public void close() {
        if (!pool.close()) {
            return;
        }
        upkeep.stop();
        boolean confirmed = connections.retire(); // a blocked take returns at once
        closing.writeLock().lock(); // takes still running finish (and see the consumer closed) first
        closing.writeLock().unlock();
        // their blocking moves end at once with the connections retired; a script's reply comes within the timeout
        pool.awaitAsyncTakes(queue.lists.commandTimeout().toNanos() * 2);
        if (!confirmed) {
            // A blocked move may still land in a slot: leave the registration, so sweepers recover it
            // once the heartbeat (not renewed any more) expires.
            log.debug("consumer {} closed without confirming its blocking connections ended", id);
            return;
        }
        try {
            queue.release(id, slotCount, "release", true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            log.warn("consumer {} of queue '{}' could not put its messages back ({}); sweepers will once its "
                    + "heartbeat expires", id, queue.name(), e.getMessage());
        }
    }

    @Override
    public CompletableFuture<Optional<Delivery>> takeAsync(Duration wait) {
        long nanos = Math.max(0, Durations.saturatedNanos(Objects.requireNonNull(wait, "wait must not be null")));
        requireOpen();
        PendingTake take = new PendingTake(this, Durations.saturatedAdd(queue.timer.now(), nanos));
        // a delivery taken in the instant the caller cancelled goes back to its slot
        CompletableFuture<Optional<Delivery>> out = queue.timer.relay(take.result, Optional::<Delivery>ofNullable,
                f -> f, delivery -> take.putBack(ref(delivery).slot()));
        take.start();
        return out;
    }

    @Override
    public String toString() {
        return "Consumer[" + id + " of " + queue.name() + "]";
    }

    /** Where {@code d} is held; a delivery this library did not make is refused. */
    private static DeliveryRef ref(Delivery d) {
        if (d instanceof SlotDelivery s) {
            return s.ref();
        }
        throw new IllegalArgumentException("delivery " + d.id() + " was not taken from a reliable queue");
    }
}
