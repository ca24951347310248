package io.coordis.internal.signal;

import io.coordis.Ticker;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Merges the copies of one message stream that several nodes deliver (a master and its replicas see the
 * same PUBLISHes in the same order) into one stream without duplicates.
 *
 * <p>It keeps the recent merged messages and, per node, the position of the next one that node is expected
 * to deliver. A node's message equal (channel and data) to the first retained message at or after its
 * position is a copy, and the node moves past it (skipping any it never delivered: it subscribed later, or
 * lost them in an outage); otherwise the message is new. After a node's gap its position restarts at the
 * messages received in the last {@link #GAP_LOOKBACK_NANOS}, as it may still deliver copies of those.
 * Identical messages are told apart only by order, so a node that missed one of two identical messages
 * may have its later copy taken for the missed one: at most once, like pub/sub itself.
 *
 * <p>Not thread-safe: callers serialise.
 */
final class OrderedMerge {
    static final int RETAINED = 10_000;
    static final long GAP_LOOKBACK_NANOS = TimeUnit.SECONDS.toNanos(2);

    private record Entry(String channel, String data, long receivedAt) {
    }

    private final Ticker ticker;
    private final long[] next;
    /** Retained messages; {@code log.get(i)} is message number {@code base + i}. */
    private final List<Entry> log = new ArrayList<>();
    private long base;

    OrderedMerge(int nodes, Ticker ticker) {
        this.next = new long[nodes];
        this.ticker = ticker;
    }

    /** Whether {@code node}'s message is new (deliver it) rather than a copy of one merged already. */
    boolean accept(int node, String channel, String data) {
        long end = base + log.size();
        for (long i = Math.max(next[node], base); i < end; i++) {
            Entry e = log.get((int) (i - base));
            if (e.channel.equals(channel) && e.data.equals(data)) {
                next[node] = i + 1;
                return false;
            }
        }
        log.add(new Entry(channel, data, ticker.read()));
        next[node] = base + log.size();
        trim();
        return true;
    }

    /** {@code node} lost messages in an outage and is subscribed again. */
    void gap(int node) {
        long since = ticker.read() - GAP_LOOKBACK_NANOS;
        long position = base + log.size();
        for (int i = log.size() - 1; i >= 0 && log.get(i).receivedAt - since >= 0; i--) {
            position = base + i;
        }
        next[node] = position;
    }

    private void trim() {
        if (log.size() > 2 * RETAINED) {
            int drop = log.size() - RETAINED;
            log.subList(0, drop).clear();
            base += drop;
        }
    }

    /** Messages retained now, for tests. */
    int retained() {
        return log.size();
    }
}
