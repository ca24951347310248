package io.coordis.internal.inspect;

import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.SignalState;
import io.coordis.internal.election.ElectionLayout;
import io.coordis.internal.latch.LatchLayout;
import io.coordis.internal.lock.LockLayout;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.signal.SignalLayout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signals for the inspector: found with {@code PUBSUB CHANNELS} (less Coordis' own lock, election and latch channels) and
 * a {@code SCAN} for latched events ({@link SignalLayout}), read with {@code PUBSUB NUMSUB} and the event key.
 * Every channel exists in this sense, with 0 subscribers. Thread-safe.
 */
final class SignalStates implements StateReader<SignalState> {
    private static final Logger LOG = LoggerFactory.getLogger(Inspector.class);

    private final Keyspace keyspace;

    SignalStates(Keyspace keyspace) {
        this.keyspace = keyspace;
    }

    @Override
    public ObjectKind kind() {
        return ObjectKind.SIGNAL;
    }

    @Override
    public SortedSet<String> find(Glob glob) throws InterruptedException {
        RedisNode node = keyspace.first();
        TreeSet<String> names = new TreeSet<>();
        for (String channel : Keyspace.await(node, node.admin().pubsubChannels(glob.pattern()))) {
            boolean ours = KeyLayout.owner(channel, LockLayout::releasedChannel).isPresent()
                    || KeyLayout.owner(channel, ElectionLayout::changedChannel).isPresent()
                    || KeyLayout.owner(channel, LatchLayout::channel).isPresent();
            if (!ours) {
                names.add(channel);
            }
        }
        for (String key : keyspace.scan(node, SignalLayout.eventKey("*"), "string")) {
            KeyLayout.owner(key, SignalLayout::eventKey).filter(glob::matches).ifPresent(names::add);
        }
        return names;
    }

    @Override
    public List<SignalState> readFound(List<String> names) throws InterruptedException {
        Map<String, Long> counts = keyspace.numsub(names, false);
        List<SignalState> signals = new ArrayList<>();
        for (String name : names) {
            SignalState state = state(name, counts, true);
            boolean onlyAnUnreadableEvent = state == null;
            if (onlyAnUnreadableEvent) {
                LOG.debug("listing signals: the latched event of '{}' left out, this user may not read it", name);
                continue;
            }
            signals.add(state);
        }
        return signals;
    }

    /** Never empty: a channel without subscribers or a latched event is shown with 0 subscribers. */
    @Override
    public Optional<SignalState> read(String name) throws InterruptedException {
        return Optional.of(state(name, keyspace.numsub(List.of(name), false), false));
    }

    /** Null only when {@code listing}, the event is unreadable to this user and the channel has no subscriber. */
    private SignalState state(String name, Map<String, Long> counts, boolean listing) throws InterruptedException {
        Optional<String> latched = Optional.empty();
        Optional<Duration> latchedTtl = Optional.empty();
        StringRead r = StringRead.read(keyspace.first(), List.of(SignalLayout.eventKey(name)), 0, listing).get(0);
        if (r == null && counts.getOrDefault(name, 0L) == 0) {
            return null; // known only by an event this user may not read
        }
        if (r != null && r.isString() && r.value() != null) {
            latched = Optional.of(r.value());
            latchedTtl = r.pttl() >= 0 ? Optional.of(Duration.ofMillis(r.pttl())) : Optional.empty();
        }
        return new SignalState(name, counts.getOrDefault(name, 0L), latched, latchedTtl);
    }
}
