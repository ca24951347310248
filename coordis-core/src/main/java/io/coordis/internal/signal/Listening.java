package io.coordis.internal.signal;

import io.coordis.Ticker;
import io.coordis.signal.Signal;
import io.coordis.signal.SignalListener;
import io.coordis.signal.Subscription;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Subscription} delivering every signal to a {@link SignalListener}; with several nodes, copies
 * are merged ({@link OrderedMerge}) and callbacks serialised under this object's monitor.
 */
final class Listening implements Subscription, Fanout.Sink {
    private static final Logger log = LoggerFactory.getLogger(Listening.class);
    private final SignalListener listener;
    private final List<String> addresses;
    private final OrderedMerge merge;
    private final AtomicLong gaps = new AtomicLong();
    private volatile Fanout fanout;
    private volatile boolean closed;

    Listening(SignalListener listener, List<String> addresses, Ticker ticker) {
        this.listener = listener;
        this.addresses = addresses;
        this.merge = addresses.size() > 1 ? new OrderedMerge(addresses.size(), ticker) : null;
    }

    void attach(Fanout fanout) {
        this.fanout = fanout;
        if (closed) {
            fanout.close();
        }
    }

    @Override
    public synchronized void message(int node, String channel, String data) {
        if (closed || (merge != null && !merge.accept(node, channel, data))) {
            return;
        }
        try {
            listener.onSignal(new Signal(channel, data));
        } catch (RuntimeException e) {
            log.warn("signal listener on '{}' failed", channel, e);
        }
    }

    /** Nobody waits on a listener: it simply hears nothing more. */
    @Override
    public void clientClosed(String address) {
    }

    @Override
    public synchronized void gap(int node) {
        gaps.incrementAndGet();
        if (merge != null) {
            merge.gap(node);
        }
        if (closed) {
            return;
        }
        try {
            listener.onGap(addresses.get(node));
        } catch (RuntimeException e) {
            log.warn("signal listener failed on a gap at {}", addresses.get(node), e);
        }
    }

    @Override
    public long gaps() {
        return gaps.get();
    }

    @Override
    public void close() {
        closed = true;
        Fanout f = fanout;
        if (f != null) {
            f.close();
        }
    }
}
