package io.coordis.cli.view;

import io.coordis.WrongTypeException;
import io.coordis.inspect.ElectionState;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.LatchState;
import io.coordis.inspect.LockState;
import io.coordis.inspect.ObjectKind;
import io.coordis.inspect.ObjectState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.RateLimiterState;
import io.coordis.inspect.SemaphoreState;
import io.coordis.inspect.SignalState;
import io.coordis.inspect.StateDocuments;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What {@code inspect} shows of one object: the document of {@code -o json} and the lines of text. The dashboard
 * shows the same, redacted. Immutable.
 */
public record Inspection(Map<String, Object> json, List<String> text) {
    /**
     * What {@code inspect} shows of the object {@code name} (its Redis name) of kind {@code k}; empty when nothing
     * is known under the name. A signal is always known (it may have no subscriber).
     *
     * @param redacted leave out the tokens (see {@link StateDocuments#redacted}), from the text too
     * @throws WrongTypeException when the name holds another kind of object
     */
    public static Optional<Inspection> of(Inspector inspector, ObjectKind k, String name, boolean redacted)
            throws InterruptedException {
        return inspector.read(k, name).map(s -> new Inspection(
                redacted ? StateDocuments.redacted(s) : StateDocuments.full(s), text(s, redacted)));
    }

    private static List<String> text(ObjectState state, boolean redacted) {
        if (state instanceof LockState l) {
            return LockViews.text(l, redacted);
        }
        if (state instanceof ElectionState e) {
            return StateViews.text(e);
        }
        if (state instanceof QueueState q) {
            return StateViews.text(q);
        }
        if (state instanceof SemaphoreState s) {
            return StateViews.text(s, redacted);
        }
        if (state instanceof RateLimiterState r) {
            return StateViews.text(r);
        }
        if (state instanceof LatchState c) {
            return StateViews.text(c);
        }
        return StateViews.text((SignalState) state);
    }
}
