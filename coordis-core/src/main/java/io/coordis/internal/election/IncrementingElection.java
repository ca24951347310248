package io.coordis.internal.election;

import io.coordis.CoordisException;
import io.coordis.Ticker;
import io.coordis.election.CounterElection;
import io.coordis.internal.Failures;
import io.coordis.internal.lease.LeaseSession;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;

/**
 * {@link CounterElection} by {@code counter-round.lua}: the classic INCR/EXPIRE round in one script, with
 * the local term check before each round and in {@link #isLeader()}.
 *
 * <p>Why the local deadline is safe: a round that leaves the caller leading sets the key's expiry to
 * the term after the script ran, which is after the round started; so start + term − drift comes
 * before the key can expire, and no other candidate can get 1 from INCR (and lead) before that while
 * Redis keeps its data.
 */
final class IncrementingElection implements CounterElection {
    static final LuaScript ROUND = LuaScript.load(IncrementingElection.class, "counter-round.lua");
    private static final Logger log = LoggerFactory.getLogger(IncrementingElection.class);

    private final Node node;
    private final String key;
    private final Duration term;
    private final long validityNanos;
    private final Ticker ticker;
    private long remembered;
    private long roundStart;

    IncrementingElection(Node node, String key, Duration term, double clockDriftFactor, Ticker ticker) {
        this.node = node;
        this.key = key;
        this.term = term;
        this.validityNanos = LeaseSession.validityNanos(term.toNanos(), clockDriftFactor);
        this.ticker = ticker;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public Duration term() {
        return term;
    }

    @Override
    public synchronized boolean round() throws InterruptedException {
        if (remembered > 0 && !validAt(ticker.read())) {
            log.info("counter election '{}': last successful round started a term ago or more; stepping down "
                    + "before the next round", key);
            remembered = 0;
        }
        long start = ticker.read();
        List<?> reply;
        try {
            reply = Replies.list(node.await(node.eval(ROUND, List.of(key),
                    List.of(Long.toString(remembered), Long.toString(term.toSeconds()))), node.commandTimeout()),
                    3, ROUND, node.address());
        } catch (CoordisException e) {
            throw Failures.about(Failures.object("counter election", key), e);
        }
        boolean leads = Replies.isOne(reply);
        long next = Replies.number(reply, 2, ROUND, node.address());
        if (remembered > 0 && !leads) {
            log.warn("counter election '{}': stepped down (remembered {} is above the counter {}: Redis was reset "
                    + "or failed over)", key, remembered, Replies.number(reply, 1, ROUND, node.address()));
        }
        remembered = next;
        if (leads) {
            roundStart = start;
        }
        return leads;
    }

    @Override
    public synchronized boolean isLeader() {
        return remembered > 0 && validAt(ticker.read());
    }

    @Override
    public synchronized long remembered() {
        return remembered;
    }

    @Override
    public synchronized void stepDown() {
        remembered = 0;
    }

    private boolean validAt(long now) {
        return now - roundStart < validityNanos;
    }

    @Override
    public String toString() {
        return "CounterElection[" + key + " on " + node.address() + ", term " + term.toSeconds() + "s]";
    }
}
