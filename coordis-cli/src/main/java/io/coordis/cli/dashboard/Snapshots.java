package io.coordis.cli.dashboard;

import io.coordis.Urls;
import io.coordis.cli.support.Json;
import io.coordis.cli.view.Listing;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.ObjectKind;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What the dashboard shows: every {@code refresh} it lists every kind of object as {@code ls -o json} does (the same
 * documents, from {@link Listing#listings}, redacted: no token) with each Redlock lock's nodes, and keeps
 * for the last minutes each queue's depth, in-flight count, dead letters and throughput (messages settled per second,
 * from the change of the queue's settled count between two samples), and each election's recent terms, so a page
 * opened late still draws them. One thread samples;
 * {@link #latest()} may be called from any thread.
 */
final class Snapshots implements AutoCloseable {
    /** How long the history reaches back. */
    static final Duration KEPT = Duration.ofMinutes(5);
    /** At most this many points per queue, whatever the refresh. */
    private static final int MAX_POINTS = 1500;
    /** Terms remembered per election. */
    private static final int MAX_TERMS = 10;

    private final Inspector inspector;
    private final String pattern;
    private final Duration refresh;
    private final List<String> redis;
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "coordis-dashboard-sampler");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Series> queues = new HashMap<>();
    private final Map<String, Series> elections = new HashMap<>();
    /** The documents of the last sample, one per kind, redacted. */
    private List<Map<String, Object>> listings = List.of();
    private volatile byte[] latest;

    /**
     * @param pattern the glob of Redis names to show (the key prefix included)
     * @param urls    the Redis URLs, shown on the page without their credentials
     */
    Snapshots(Inspector inspector, String pattern, Duration refresh, List<String> urls) {
        this.inspector = inspector;
        this.pattern = pattern;
        this.refresh = refresh;
        this.redis = urls.stream().map(Snapshots::shown).toList();
        this.latest = Json.write(document(Instant.now(), "not read yet")).getBytes(StandardCharsets.UTF_8);
    }

    /** Samples now and then every {@code refresh}, on a thread of its own. */
    Snapshots start() {
        sampler.scheduleWithFixedDelay(this::sample, 0, refresh.toNanos(), TimeUnit.NANOSECONDS);
        return this;
    }

    /** The last sample as one JSON document (UTF-8). */
    byte[] latest() {
        return latest;
    }

    /** Reads every kind of object once and records it; a failure is shown on the page, the last figures kept. */
    void sample() {
        Instant at = Instant.now();
        String error = null;
        try {
            List<Map<String, Object>> read = new ArrayList<>();
            for (Listing l : Listing.listings(inspector, List.of(ObjectKind.values()), pattern)) {
                read.add(l.document(pattern, at, true));
            }
            synchronized (this) {
                listings = read;
                record(at);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (RuntimeException e) {
            error = Urls.redact(String.valueOf(e.getMessage()));
        }
        latest = Json.write(document(at, error)).getBytes(StandardCharsets.UTF_8);
    }

    private synchronized Map<String, Object> document(Instant at, String error) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("at", at);
        doc.put("refreshMs", refresh);
        doc.put("match", pattern);
        doc.put("redis", redis);
        doc.put("error", error);
        doc.put("listings", listings);
        Map<String, Object> history = new LinkedHashMap<>();
        history.put("keptMs", KEPT);
        history.put("queues", points(queues));
        history.put("elections", points(elections));
        doc.put("history", history);
        doc.put("redlockNodes", redlockNodes());
        return doc;
    }

    /** Each Redlock lock's nodes, as its document shows them ({@code perNode}), by lock name. */
    private Map<String, Object> redlockNodes() {
        Map<String, Object> out = new LinkedHashMap<>();
        for (Map<String, Object> item : items(ObjectKind.LOCK)) {
            if ("redlock".equals(item.get("mode"))) {
                out.put((String) item.get("name"), item.get("perNode"));
            }
        }
        return out;
    }

    /** The items of the last sample's listing of {@code kind}. */
    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> items(ObjectKind kind) {
        for (Map<String, Object> l : listings) {
            if (kind.plural().equals(l.get("kind"))) {
                return (List<Map<String, Object>>) l.get("items");
            }
        }
        return List.of();
    }

    private void record(Instant at) {
        for (Map<String, Object> m : items(ObjectKind.QUEUE)) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("at", at);
            p.put("depth", m.get("depth"));
            p.put("inFlight", m.get("inFlight"));
            p.put("deadLetters", m.get("deadLetters"));
            p.put("settled", m.get("settled"));
            Series series = queues.computeIfAbsent((String) m.get("name"), n -> new Series(MAX_POINTS));
            p.put("settledPerSecond", series.isEmpty() ? 0.0 : perSecond(series.points.peekLast(),
                    series.times.peekLast(), (Long) m.get("settled"), at));
            series.add(at, p, false);
        }
        for (Map<String, Object> m : items(ObjectKind.ELECTION)) {
            if (m.get("leader") instanceof String leader) {
                Map<String, Object> t = new LinkedHashMap<>();
                t.put("term", m.get("term"));
                t.put("leader", leader);
                t.put("since", m.get("since"));
                elections.computeIfAbsent((String) m.get("name"), n -> new Series(MAX_TERMS)).add(at, t, true);
            }
        }
        Instant oldest = at.minus(KEPT);
        queues.values().forEach(s -> s.dropBefore(oldest));
        queues.values().removeIf(Series::isEmpty);
        elections.values().removeIf(s -> s.lastSeen.isBefore(oldest));
    }

    /**
     * Messages settled per second between the previous point and now; 0 when the count went down (the counter
     * was deleted or Redis lost it) or no time passed.
     */
    static double perSecond(Map<String, Object> previous, Instant then, long settled, Instant now) {
        long before = previous.get("settled") instanceof Long n ? n : settled;
        double seconds = Duration.between(then, now).toNanos() / 1e9;
        if (settled < before || seconds <= 0) {
            return 0.0;
        }
        return Math.round((settled - before) / seconds * 100) / 100.0;
    }

    private static Map<String, Object> points(Map<String, Series> all) {
        Map<String, Object> out = new LinkedHashMap<>();
        all.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> out.put(e.getKey(), List.copyOf(e.getValue().points)));
        return out;
    }

    /** A URL as the page shows it: without credentials, and without its query (which may carry options). */
    static String shown(String url) {
        String redacted = Urls.redact(url);
        int query = redacted.indexOf('?');
        return query < 0 ? redacted : redacted.substring(0, query);
    }

    @Override
    public void close() {
        sampler.shutdownNow();
        try {
            sampler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Points of one object, oldest first, with when each was taken. */
    private static final class Series {
        private final int max;
        private final Deque<Map<String, Object>> points = new ArrayDeque<>();
        private final Deque<Instant> times = new ArrayDeque<>();
        private Instant lastSeen = Instant.EPOCH;

        Series(int max) {
            this.max = max;
        }

        /** Adds {@code point}; with {@code changesOnly}, only when it differs from the last one. */
        void add(Instant at, Map<String, Object> point, boolean changesOnly) {
            lastSeen = at;
            if (changesOnly && !points.isEmpty() && Objects.equals(points.peekLast(), point)) {
                return;
            }
            points.addLast(point);
            times.addLast(at);
            if (points.size() > max) {
                points.removeFirst();
                times.removeFirst();
            }
        }

        void dropBefore(Instant oldest) {
            while (!times.isEmpty() && times.peekFirst().isBefore(oldest)) {
                times.removeFirst();
                points.removeFirst();
            }
        }

        boolean isEmpty() {
            return points.isEmpty();
        }
    }
}
