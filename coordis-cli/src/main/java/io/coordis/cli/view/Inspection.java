package io.coordis.cli.view;

import io.coordis.WrongTypeException;
import io.coordis.inspect.Inspector;

import java.util.List;
import java.util.Optional;

/**
 * What {@code inspect} shows of one object: the document of {@code -o json} and the lines of text. The dashboard
 * shows the same. Immutable.
 */
public record Inspection(Object json, List<String> text) {
    /**
     * What {@code inspect} shows of the object {@code name} (its Redis name) of kind {@code k}; empty when nothing
     * is known under the name. A signal is always known (it may have no subscriber).
     *
     * @throws WrongTypeException when the name holds another kind of object
     */
    public static Optional<Inspection> of(Inspector inspector, ObjectKind k, String name) throws InterruptedException {
        return switch (k) {
            case LOCKS -> inspector.lock(name).map(s -> new Inspection(LockViews.json(s, true), LockViews.text(s)));
            case ELECTIONS -> inspector.election(name).map(s -> new Inspection(StateViews.json(s), StateViews.text(s)));
            case QUEUES -> inspector.queue(name).map(s -> new Inspection(StateViews.json(s), StateViews.text(s)));
            case SEMAPHORES -> inspector.semaphore(name).map(s -> new Inspection(StateViews.json(s), StateViews.text(s)));
            case SIGNALS -> {
                var state = inspector.signal(name);
                yield Optional.of(new Inspection(StateViews.json(state), StateViews.text(state)));
            }
        };
    }
}
