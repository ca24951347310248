package io.coordis.inspect;

import java.util.Locale;
import java.util.Optional;

/**
 * The kinds of objects an {@link Inspector} finds, in the order {@code coordis ls} lists them. Each has a
 * singular name ({@code lock}) and a plural one ({@code locks}); both name it on the command line, in the
 * dashboard's queries and in the documents of {@link StateDocuments}. Thread-safe: an enum.
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
    SEMAPHORE;

    /**
     * The singular name.
     *
     * @return {@code lock}, {@code election}, {@code queue}, {@code signal} or {@code semaphore}
     */
    public String singular() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The plural name.
     *
     * @return {@code locks}, {@code elections}, {@code queues}, {@code signals} or {@code semaphores}
     */
    public String plural() {
        return singular() + "s";
    }

    /**
     * The kind named {@code given}, by its singular or plural name, in any case.
     *
     * @param given a name such as {@code lock} or {@code Queues}
     * @return the kind, or empty when no kind has that name
     */
    public static Optional<ObjectKind> named(String given) {
        for (ObjectKind k : values()) {
            if (k.singular().equalsIgnoreCase(given) || k.plural().equalsIgnoreCase(given)) {
                return Optional.of(k);
            }
        }
        return Optional.empty();
    }
}
