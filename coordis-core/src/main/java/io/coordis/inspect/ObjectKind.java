package io.coordis.inspect;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The kinds of objects an {@link Inspector} finds, in the order {@code coordis ls} lists them. Each has a
 * singular name ({@code lock}) and a plural one ({@code locks}); both name it on the command line, in the
 * dashboard's queries and in the documents of {@link StateDocuments}. A name of two words is written with
 * {@code -} ({@code rate-limiter}), as documents write every enum value; {@link #named} also takes it written as
 * one word and, for a kind the command line has a shorter verb for, that word ({@code rate}, as in
 * {@code coordis rate}). Thread-safe: an enum.
 */
public enum ObjectKind {
    /** Locks: single node, Redlock, legacy and other clients' ({@link LockState}). */
    LOCK,
    /** Lease elections with a leader ({@link ElectionState}). */
    ELECTION,
    /** Queues, plain and reliable ({@link QueueState}). */
    QUEUE,
    /** Signal channels with subscribers, and latched events ({@link SignalState}). */
    SIGNAL,
    /** Semaphores ({@link SemaphoreState}). */
    SEMAPHORE,
    /**
     * Rate limiters that are not idle ({@link RateLimiterState}). Named {@code rate-limiter}; {@code ratelimiter}
     * and {@code rate} (the command that runs one) name it too.
     */
    RATE_LIMITER("rate"),
    /** Count-down latches ({@link LatchState}). */
    LATCH;

    /** A shorter name that also names the kind, as its command does; empty for none. */
    private final String verb;

    ObjectKind() {
        this("");
    }

    ObjectKind(String verb) {
        this.verb = verb;
    }

    /**
     * The singular name.
     *
     * @return {@code lock}, {@code election}, {@code queue}, {@code signal}, {@code semaphore},
     *         {@code rate-limiter} or {@code latch}
     */
    public String singular() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The plural name.
     *
     * @return {@code locks}, {@code elections}, {@code queues}, {@code signals}, {@code semaphores},
     *         {@code rate-limiters} or {@code latches}
     */
    public String plural() {
        return singular() + (singular().endsWith("ch") ? "es" : "s");
    }

    /**
     * The kind named {@code given}, by its singular or plural name, in any case; a name of two words also written
     * as one ({@code ratelimiters}), and a kind's shorter name in the singular or plural ({@code rate},
     * {@code rates}).
     *
     * @param given a name such as {@code lock}, {@code Queues} or {@code rate-limiters}
     * @return the kind, or empty when no kind has that name
     */
    public static Optional<ObjectKind> named(String given) {
        for (ObjectKind k : values()) {
            for (String name : List.of(k.singular(), k.plural(), k.singular().replace("-", ""),
                    k.plural().replace("-", ""))) {
                if (name.equalsIgnoreCase(given)) {
                    return Optional.of(k);
                }
            }
            if (!k.verb.isEmpty() && (k.verb.equalsIgnoreCase(given) || (k.verb + "s").equalsIgnoreCase(given))) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
