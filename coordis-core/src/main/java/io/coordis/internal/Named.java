package io.coordis.internal;

import io.coordis.CoordisException;

/**
 * An object the caller named and Coordis stores under a key (a lock, a lease, an election, an event): its
 * name and key as the API reports them, and the words failures use for it ({@code lock 'orders'}). The
 * primitives' implementations extend it; it adds nothing to their API.
 */
public abstract class Named {
    /** The name the caller gave. */
    protected final String name;
    /** The Redis key it is stored under. */
    protected final String key;
    private final String kind;

    /** {@code kind} as messages say it, e.g. {@code lock}; {@code key} the Redis key it is stored under. */
    protected Named(String kind, String name, String key) {
        this.kind = kind;
        this.name = name;
        this.key = key;
    }

    public final String name() {
        return name;
    }

    public final String key() {
        return key;
    }

    /** The object as failures name it, e.g. {@code lock 'orders'}. */
    public final String object() {
        return Failures.object(kind, name);
    }

    /** {@code e} naming this object, e.g. {@code lock 'orders': Redis at ... is out of memory}. */
    public final CoordisException named(CoordisException e) {
        return Failures.about(object(), e);
    }
}
