package io.coordis.spring.boot.autoconfigure;

import io.coordis.inspect.ElectionState;
import io.coordis.inspect.LockState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.SignalState;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@code /actuator/coordis} answers: the objects {@code coordis ls} lists, read at one moment. Names are
 * Redis names (with the client's key prefix); durations are in milliseconds; absent values are {@code null}.
 * Lock tokens are left out: whoever knows a token can release or extend the lock.
 *
 * @param match     the glob the names were matched against, after the key prefix
 * @param at        when the view was read (ISO-8601)
 * @param locks     held locks
 * @param elections elections with a leader
 * @param queues    queues
 * @param signals   channels with subscribers, and latched events
 */
public record CoordisView(String match, String at, List<Lock> locks, List<Election> elections, List<Queue> queues,
                          List<Signal> signals) {

    /**
     * A held lock.
     *
     * @param mode         single_node, redlock or legacy
     * @param nodes        nodes asked (1 unless Redlock)
     * @param agreeing     nodes holding the majority's value
     * @param holder       the holder's id (user@host:pid); null for a client that records none
     * @param since        when the holder acquired it (its clock)
     * @param ttlMs        time left before the key expires
     * @param leaseTtlMs   the TTL the holder asked for, renewed every third of it
     * @param fence        the fencing number of this acquisition
     * @param fenceCounter the fencing counter now
     * @param waiters      Coordis clients waiting for its release
     * @param flags        foreign, no_expiry, expiring_soon, not_renewed, nodes_disagree
     */
    public record Lock(String name, String mode, int nodes, int agreeing, String holder, String since, Long ttlMs,
                       Long leaseTtlMs, Long fence, Long fenceCounter, long waiters, List<String> flags) {
        static Lock of(LockState l) {
            return new Lock(l.name(), lower(l.mode()), l.nodes(), l.agreeing(), l.holderId().orElse(null),
                    l.since().map(Object::toString).orElse(null), ms(l.ttl()), ms(l.leaseTtl()), num(l.fencingToken()),
                    num(l.fenceCounter()), l.waiters(), l.flags().stream().sorted().map(CoordisView::lower).toList());
        }
    }

    /**
     * An election with a leader.
     *
     * @param leader      the leader's id
     * @param term        the leader's term (its fencing number)
     * @param since       when the leadership began (the leader's clock)
     * @param ttlMs       time left before the leadership lapses unless renewed
     * @param termCounter the highest term handed out so far
     * @param observers   Coordis clients listening for changes of leadership
     */
    public record Election(String name, String leader, Long term, String since, Long ttlMs, Long termCounter,
                           long observers) {
        static Election of(ElectionState e) {
            return new Election(e.name(), e.leader().orElse(null), num(e.term()),
                    e.since().map(Object::toString).orElse(null), ms(e.ttl()), num(e.termCounter()), e.observers());
        }
    }

    /**
     * A queue.
     *
     * @param depth               messages ready to be taken
     * @param inFlight            messages delivered and not yet settled
     * @param oldestReadyAgeMs    how long the oldest ready message has waited
     * @param oldestInFlightAgeMs how long the oldest in-flight message has been in its slot
     * @param overdue             in-flight messages of dead consumers, about to go back
     * @param dead                dead letters
     * @param delayed             nacked messages waiting for their delay
     * @param settled             messages acked or dead-lettered by every Coordis consumer so far (a counter that
     *                            only grows: its change between two reads is the throughput)
     * @param consumers           registered consumers
     */
    public record Queue(String name, long depth, long inFlight, Long oldestReadyAgeMs, Long oldestInFlightAgeMs,
                        long overdue, long dead, long delayed, long settled, int consumers) {
        static Queue of(QueueState q) {
            return new Queue(q.name(), q.depth(), q.inFlight(), ms(q.oldestReadyAge()), ms(q.oldestInFlightAge()),
                    q.overdue(), q.deadLetters(), q.delayed(), q.settled(), q.consumers().size());
        }
    }

    /**
     * A channel with subscribers, or a latched event.
     *
     * @param subscribers  clients subscribed now
     * @param latched      a latched event's data; null when none
     * @param latchedTtlMs the latched event's time left; null when none or never expiring
     */
    public record Signal(String channel, long subscribers, String latched, Long latchedTtlMs) {
        static Signal of(SignalState s) {
            return new Signal(s.channel(), s.subscribers(), s.latched().orElse(null), ms(s.latchedTtl()));
        }
    }

    private static Long ms(Optional<Duration> d) {
        return d.map(Duration::toMillis).orElse(null);
    }

    private static Long num(OptionalLong n) {
        return n.isPresent() ? n.getAsLong() : null;
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT);
    }
}
