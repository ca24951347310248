package io.coordis.internal.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who listens on which channel and pattern of one pub/sub connection, and what Redis has confirmed: the
 * bookkeeping of {@link Subscriptions}, which changes it under its own monitor while the I/O thread reads it
 * without locking to deliver messages and confirmations. A listener that throws is logged and skipped.
 */
final class Listeners {
    private static final Logger log = LoggerFactory.getLogger(Listeners.class);
    private final String address;
    private final Map<String, Entry> channels = new ConcurrentHashMap<>();
    private final Map<String, Entry> patterns = new ConcurrentHashMap<>();

    /** The listeners of one channel or pattern. */
    private static final class Entry {
        final List<PubSubListener> listeners = new CopyOnWriteArrayList<>();
        /** Completes when Redis confirms the subscription; replaced under the monitor when sending failed. */
        volatile CompletableFuture<Void> confirmed;
        /** Set when the connection dropped; cleared, and reported as a gap, by the next confirmation. */
        final AtomicBoolean interrupted = new AtomicBoolean();
    }

    Listeners(String address) {
        this.address = address;
    }

    private Map<String, Entry> of(boolean pattern) {
        return pattern ? patterns : channels;
    }

    /**
     * What a registration changed: the names to send SUBSCRIBE for, their confirmations to complete, and a future
     * that completes when every name of the registration is confirmed.
     */
    record Added(List<String> toSend, List<CompletableFuture<Void>> pending, CompletableFuture<Void> ready) {
    }

    /** Registers {@code listener} on {@code names}; those not subscribed yet (or whose SUBSCRIBE failed) are to be sent. */
    Added add(List<String> names, boolean pattern, PubSubListener listener) {
        Map<String, Entry> map = of(pattern);
        List<String> toSend = new ArrayList<>();
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        List<CompletableFuture<Void>> confirmations = new ArrayList<>();
        for (String name : names) {
            Entry entry = map.computeIfAbsent(name, n -> new Entry());
            entry.listeners.add(listener);
            CompletableFuture<Void> confirmed = entry.confirmed;
            if (confirmed == null || confirmed.isCompletedExceptionally()) {
                confirmed = new CompletableFuture<>();
                entry.confirmed = confirmed;
                toSend.add(name);
                pending.add(confirmed);
            }
            confirmations.add(confirmed);
        }
        return new Added(toSend, pending, CompletableFuture.allOf(confirmations.toArray(CompletableFuture[]::new)));
    }

    /** Every registered name, to be sent again on a new connection, with the confirmations still awaited. */
    Added again(boolean pattern) {
        Map<String, Entry> map = of(pattern);
        List<String> names = new ArrayList<>(map.keySet());
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (String name : names) {
            Entry entry = map.get(name);
            CompletableFuture<Void> confirmed = entry.confirmed;
            if (confirmed == null || confirmed.isCompletedExceptionally()) {
                confirmed = new CompletableFuture<>();
                entry.confirmed = confirmed;
            }
            if (!confirmed.isDone()) {
                pending.add(confirmed);
            }
        }
        return new Added(names, pending, CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)));
    }

    /**
     * Removes {@code listener} (none when null) from {@code names} and answers the names left without listeners,
     * to unsubscribe. An unconfirmed one stays registered until its confirmation arrives, so that this
     * confirmation can never be taken for that of a later SUBSCRIBE of the same name.
     */
    List<String> remove(List<String> names, boolean pattern, PubSubListener listener) {
        Map<String, Entry> map = of(pattern);
        List<String> unused = new ArrayList<>();
        for (String name : names) {
            Entry entry = map.get(name);
            if (entry == null || (listener != null && !entry.listeners.remove(listener))) {
                continue;
            }
            if (entry.listeners.isEmpty() && entry.confirmed.isDone()) {
                map.remove(name);
                unused.add(name);
            }
        }
        return unused;
    }

    /** Hands {@code message} on {@code channel} to the listeners of {@code name}. */
    void deliver(String name, boolean pattern, String channel, String message) {
        Entry entry = of(pattern).get(name);
        if (entry == null) {
            return;
        }
        for (PubSubListener l : entry.listeners) {
            try {
                l.message(channel, message);
            } catch (RuntimeException e) {
                log.warn("a pub/sub listener on {} failed on a message from '{}'", address, channel, e);
            }
        }
    }

    /**
     * Redis confirmed {@code name}: completes its registrations, and tells its listeners of a gap when the
     * connection dropped since. Answers whether it has no listener left (closed before the confirmation came).
     */
    boolean confirm(String name, boolean pattern) {
        Entry entry = of(pattern).get(name);
        if (entry == null) {
            return false;
        }
        CompletableFuture<Void> confirmed = entry.confirmed;
        if (confirmed != null) {
            confirmed.complete(null);
        }
        if (entry.interrupted.compareAndSet(true, false)) {
            for (PubSubListener l : entry.listeners) {
                try {
                    l.gap();
                } catch (RuntimeException e) {
                    log.warn("a pub/sub listener on {} failed on a gap", address, e);
                }
            }
        }
        return entry.listeners.isEmpty();
    }

    /** The connection could not be opened: every confirmation still awaited fails with {@code failure}. */
    void failPending(Throwable failure) {
        channels.values().forEach(e -> fail(e, failure));
        patterns.values().forEach(e -> fail(e, failure));
    }

    private static void fail(Entry entry, Throwable failure) {
        CompletableFuture<Void> confirmed = entry.confirmed;
        if (confirmed != null) {
            confirmed.completeExceptionally(failure);
        }
    }

    /** The connection dropped: every registration will report a gap when Redis confirms it again. */
    void interrupted() {
        channels.values().forEach(e -> e.interrupted.set(true));
        patterns.values().forEach(e -> e.interrupted.set(true));
    }

    /** Forgets every registration and answers their listeners, each once. */
    Set<PubSubListener> clear() {
        Set<PubSubListener> all = Collections.newSetFromMap(new IdentityHashMap<>());
        channels.values().forEach(e -> all.addAll(e.listeners));
        patterns.values().forEach(e -> all.addAll(e.listeners));
        channels.clear();
        patterns.clear();
        return all;
    }

    /** Tells {@code listeners} that the node closed. */
    void closed(Set<PubSubListener> listeners) {
        for (PubSubListener listener : listeners) {
            try {
                listener.closed();
            } catch (RuntimeException e) {
                log.warn("a pub/sub listener on {} failed when told the client closed", address, e);
            }
        }
    }
}
