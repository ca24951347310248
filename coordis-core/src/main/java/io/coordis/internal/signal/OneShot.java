package io.coordis.internal.signal;

import io.coordis.internal.Timer;
import io.coordis.signal.Signal;
import io.coordis.signal.Waiter;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * A {@link Waiter} completed by the first message any node delivers; later ones (including copies of the
 * same signal from replicas) are ignored. An optional recheck runs after every gap (latched events).
 */
final class OneShot extends Pending<Signal> implements Waiter {
    private final List<String> channels;
    private final Consumer<OneShot> recheck;

    OneShot(List<String> channels, Consumer<OneShot> recheck, Timer timer) {
        super("waiter on " + channels, "a signal arrived", timer);
        this.channels = List.copyOf(channels);
        this.recheck = recheck;
    }

    /** Completes this waiter unless it completed already. */
    void complete(Signal signal) {
        result.complete(signal);
    }

    @Override
    public void message(int node, String channel, String data) {
        result.complete(new Signal(channel, data));
    }

    @Override
    public void gap(int node) {
        super.gap(node);
        if (recheck != null && !result.isDone()) {
            recheck.accept(this);
        }
    }

    @Override
    public CompletionStage<Signal> whenSignalled() {
        return delivered();
    }

    @Override
    public List<String> channels() {
        return channels;
    }

    @Override
    public String toString() {
        return "Waiter" + channels + (result.isDone() && !result.isCancelled() ? "[signalled]" : "");
    }
}
