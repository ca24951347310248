package io.coordis.internal.doctor;

import io.coordis.CoordisException;
import io.coordis.doctor.Finding;
import io.coordis.internal.Keys;
import io.coordis.internal.redis.AdminCommands;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.RedisNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds, and on request removes, the keys an earlier Coordis kept per name and this one never removes: the
 * per-name counters {@code {name}:fence} and {@code {name}:term} left without expiry (a plain integer; fencing
 * numbers and terms are now taken from Redis's clock, far above them, and the counters of this layout expire), and
 * holder details, permit counts, waiter lists and markers ({@code {name}:holder}, {@code :permits},
 * {@code :released}, ...) left without an expiry. Queue keys are data and are never counted.
 *
 * <p>Walks the keyspace under the client's key prefix with {@code SCAN} (never {@code KEYS}), 1,000 keys a step,
 * and asks {@code PTTL} (and {@code GET} for counters) of each candidate in one pipelined batch per step; memory
 * is {@code MEMORY USAGE} of a random sample, extrapolated. Removal deletes one key at a time with
 * {@code remove-old-layout.lua}, a step's keys pipelined, and only keys that are unused at that moment.
 */
final class OldLayout {
    static final String TOPIC = "old-layout";
    /** How many leftovers {@code MEMORY USAGE} measures. */
    static final int SAMPLE = 200;
    private static final long SCAN_COUNT = 1000;
    private static final LuaScript REMOVE = LuaScript.load(OldLayout.class, "remove-old-layout.lua");
    static final List<String> COUNTERS = List.of("fence", "term");
    /** State that expires with its hold in the new layout; longer suffixes first. */
    static final List<String> STATE = List.of("readers:details", "waiters-until", "holder", "holders",
            "readers", "permits", "waiters", "released", "leader");

    private OldLayout() {
    }

    /** A leftover: its key, the key it was derived from, and its suffix ({@code fence}, {@code holder}, ...). */
    record Leftover(String key, String owner, String suffix) {
        boolean counter() {
            return COUNTERS.contains(suffix);
        }

        String rule() {
            return counter() ? "counter" : suffix.equals("holder") ? "holder" : "idle";
        }
    }

    /**
     * What a walk found on one node.
     *
     * @param bySuffix     leftovers per suffix
     * @param sampled      how many of them {@code MEMORY USAGE} measured
     * @param sampledBytes what those took together
     * @param memoryRefusal why memory was not measured, when it was not
     */
    record Tally(Map<String, Long> bySuffix, int sampled, long sampledBytes, Optional<String> memoryRefusal) {
        long total() {
            return bySuffix.values().stream().mapToLong(Long::longValue).sum();
        }

        /** The sample's average size times the leftovers found; 0 without a sample. */
        long estimatedBytes() {
            return sampled == 0 ? 0 : Math.round((double) sampledBytes / sampled * total());
        }
    }

    /**
     * What a removal did on one node.
     *
     * @param removed per suffix, the keys deleted
     * @param kept    leftovers found but kept because they were in use (or changed) when their turn came
     */
    record Removed(Map<String, Long> removed, long kept) {
    }

    /** Adds the check's finding for {@code node} to {@code findings}; a refused command makes it UNKNOWN. */
    static void examine(RedisNode node, Namespace namespace, List<Finding> findings) throws InterruptedException {
        try {
            findings.add(finding(node.address(), count(node, namespace)));
        } catch (CoordisException e) {
            findings.add(new Finding(Finding.Severity.UNKNOWN, node.address(), TOPIC, "cannot look for keys of the "
                    + "old per-name layout (" + e.getMessage() + ")", "run the doctor as a user that may run SCAN, "
                    + "PTTL and GET"));
        }
    }

    /** Counts the leftovers in {@code namespace} on {@code node} and measures a sample of them. */
    static Tally count(RedisNode node, Namespace namespace) throws InterruptedException {
        Map<String, Long> bySuffix = new TreeMap<>();
        List<String> sample = new ArrayList<>();
        long[] seen = {0};
        walk(node, namespace, page -> {
            for (Leftover l : page) {
                bySuffix.merge(l.suffix(), 1L, Long::sum);
                long n = seen[0]++;
                if (sample.size() < SAMPLE) {
                    sample.add(l.key());
                } else {
                    long at = ThreadLocalRandom.current().nextLong(n + 1); // reservoir: each key equally likely
                    if (at < SAMPLE) {
                        sample.set((int) at, l.key());
                    }
                }
            }
        });
        int sampled = 0;
        long bytes = 0;
        Optional<String> refusal = Optional.empty();
        try {
            List<CompletableFuture<Long>> sizes = sample.stream().map(k -> node.admin().memoryUsage(k)).toList();
            for (CompletableFuture<Long> size : sizes) {
                Long b = node.await(size, node.commandTimeout());
                if (b != null) {
                    sampled++;
                    bytes += b;
                }
            }
        } catch (CoordisException e) {
            refusal = Optional.of(e.getMessage());
        }
        return new Tally(bySuffix, sampled, bytes, refusal);
    }

    /**
     * Deletes the leftovers in {@code namespace} on {@code node} that are not in use, a SCAN step's worth at a
     * time. Counters are always deleted; holder details when the lock does not hold the token they name; the
     * rest when the key they were derived from does not exist.
     */
    static Removed remove(RedisNode node, Namespace namespace) throws InterruptedException {
        Map<String, Long> removed = new TreeMap<>();
        long[] kept = {0};
        walk(node, namespace, page -> {
            List<CompletableFuture<Object>> sent = page.stream()
                    .map(l -> node.eval(REMOVE, List.of(l.key(), l.owner()), List.of(l.rule()))).toList();
            for (int i = 0; i < page.size(); i++) {
                Object answer = node.await(sent.get(i), node.commandTimeout());
                if (answer instanceof List<?> reply && !reply.isEmpty() && Long.valueOf(1).equals(reply.get(0))) {
                    removed.merge(page.get(i).suffix(), 1L, Long::sum);
                } else {
                    kept[0]++;
                }
            }
        });
        return new Removed(removed, kept[0]);
    }

    interface PageAction {
        void accept(List<Leftover> page) throws InterruptedException;
    }

    /** Walks the keys in {@code namespace} and hands each SCAN step's leftovers to {@code action}. */
    static void walk(RedisNode node, Namespace namespace, PageAction action) throws InterruptedException {
        for (String match : patterns(namespace)) {
            AdminCommands.KeyWalk walk = node.admin().walk(match, null, SCAN_COUNT);
            do {
                List<Leftover> candidates = new ArrayList<>();
                for (String key : node.await(walk.next(), node.commandTimeout())) {
                    candidate(key, namespace).ifPresent(candidates::add);
                }
                if (!candidates.isEmpty()) {
                    List<Leftover> leftovers = leftovers(node, candidates);
                    if (!leftovers.isEmpty()) {
                        action.accept(leftovers);
                    }
                }
            } while (!walk.finished());
        }
    }

    /** The candidates that are leftovers: without expiry, and for counters a plain integer. */
    private static List<Leftover> leftovers(RedisNode node, List<Leftover> candidates) throws InterruptedException {
        AdminCommands admin = node.admin();
        List<CompletableFuture<Long>> ttls = candidates.stream().map(c -> admin.pttl(c.key())).toList();
        List<CompletableFuture<String>> values = candidates.stream()
                .map(c -> c.counter() ? node.get(c.key()).exceptionally(e -> null) // WRONGTYPE: not a counter
                        : CompletableFuture.<String>completedFuture(null)).toList();
        List<Leftover> out = new ArrayList<>();
        for (int i = 0; i < candidates.size(); i++) {
            Leftover c = candidates.get(i);
            Long ttl = node.await(ttls.get(i), node.commandTimeout());
            String value = node.await(values.get(i), node.commandTimeout());
            if (ttl != null && ttl == -1 && (!c.counter() || (value != null && value.matches("-?\\d{1,19}")))) {
                out.add(c);
            }
        }
        return out;
    }

    /** {@code key} as a leftover candidate: a derived key of an old-layout suffix, of a name in {@code namespace}. */
    static Optional<Leftover> candidate(String key, Namespace namespace) {
        for (List<String> suffixes : List.of(COUNTERS, STATE)) {
            for (String suffix : suffixes) {
                if (!key.endsWith(":" + suffix)) {
                    continue;
                }
                String base = key.substring(0, key.length() - suffix.length() - 1);
                Optional<String> owner = Optional.empty();
                if (base.length() > 2 && base.startsWith("{") && base.endsWith("}")
                        && Keys.derived(base.substring(1, base.length() - 1), suffix).equals(key)) {
                    owner = Optional.of(base.substring(1, base.length() - 1));
                } else if (Keys.derived(base, suffix).equals(key)) {
                    owner = Optional.of(base);
                }
                if (owner.isPresent() && namespace.holds(owner.get())) {
                    return Optional.of(new Leftover(key, owner.get(), suffix));
                }
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** SCAN patterns covering the derived keys of names in {@code namespace}: {@code {P*} and {@code P*}. */
    static List<String> patterns(Namespace namespace) {
        if (namespace.prefix().isEmpty()) {
            return List.of("*");
        }
        return List.of("{" + namespace.pattern("*"), namespace.pattern("*"));
    }

    static Finding finding(String at, Tally tally) {
        long total = tally.total();
        if (total == 0) {
            return new Finding(Finding.Severity.OK, at, TOPIC, "no keys of the old per-name layout (per-name "
                    + "fencing and term counters, holder details without expiry)", "");
        }
        List<String> parts = new ArrayList<>();
        tally.bySuffix().forEach((suffix, n) -> parts.add(String.format(Locale.ROOT, "%,d {name}:%s", n, suffix)));
        String memory;
        if (tally.memoryRefusal().isPresent()) {
            memory = "memory not measured (MEMORY USAGE: " + tally.memoryRefusal().get() + ")";
        } else if (tally.sampled() == 0) {
            memory = "memory not measured (the sampled keys were gone)";
        } else {
            memory = String.format(Locale.ROOT, "about %s (MEMORY USAGE of %d sampled keys, extrapolated)",
                    bytes(tally.estimatedBytes()), tally.sampled());
        }
        return new Finding(Finding.Severity.WARN, at, TOPIC, String.format(Locale.ROOT, "%,d %s of the old "
                + "per-name layout never %s (%s); %s", total, total == 1 ? "key" : "keys",
                total == 1 ? "expires" : "expire", String.join(", ", parts), memory),
                "once no client of the old layout runs any more: coordis doctor --remove-old-layout (with the same "
                + "URL and key prefix); it deletes in batches only leftovers not in use, and the counters always, as "
                + "new fencing numbers and terms start above them");
    }

    static String bytes(long b) {
        if (b < 1024) {
            return b + " bytes";
        }
        if (b < 1024L * 1024) {
            return String.format(Locale.ROOT, "%.1f KB", b / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MB", b / (1024.0 * 1024));
    }
}
