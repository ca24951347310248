package io.coordis.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One producer and {@code consumers} consumers on one reliable queue: the producer pushes as fast as it
 * can while at most {@code window} messages are unacknowledged (so the queue stays short and the figure is
 * the round trip, not a backlog); each consumer takes (moving the message into its processing list) and
 * acks, per message with {@link Queueing#ackAndTake} (one round trip for a client that merges the two, two
 * otherwise). A client with a batch API ({@link Queueing#batch()} &gt; 1) pushes, takes and acks up to that many
 * messages per call instead. When the time is up the producer stops and the consumers drain what is left (at most 10 s).
 *
 * <p>Figures: {@code ops} (messages acked), {@code seconds}, {@code opsPerSec}, push-to-ack latency
 * ({@code p50Us}, {@code p99Us}), {@code pushed}, {@code duplicates} (acked twice), {@code lost} (pushed,
 * never acked and no longer in the queue or a processing list).
 */
final class QueueFlow implements Workload {
    private static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final Duration TAKE_TIMEOUT = Duration.ofMillis(100);

    private final Queueing queueing;
    private final String queue;
    private final List<String> consumers = new ArrayList<>();
    private final int window;
    private volatile boolean producing;
    private volatile boolean consuming;

    QueueFlow(Queueing queueing, String queue, int consumers, int window) {
        this.queueing = queueing;
        this.queue = queue;
        this.window = window;
        for (int i = 0; i < consumers; i++) {
            this.consumers.add("c" + i);
        }
    }

    @Override
    public Map<String, Double> run(Duration duration) throws Exception {
        AtomicLong pushed = new AtomicLong();
        AtomicLong acked = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        Histogram[] latency = new Histogram[consumers.size()];
        Throwable[] failure = new Throwable[1];
        long run = System.nanoTime();
        producing = true;
        consuming = true;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < consumers.size(); i++) {
            String consumer = consumers.get(i);
            Histogram h = latency[i] = new Histogram(MAX_NANOS, 3);
            threads.add(new Thread(() -> {
                try {
                    int batch = queueing.batch();
                    String held = null; // per message: taken with the previous ack, not yet acked
                    while (consuming) {
                        List<String> got = batch > 1 ? queueing.takeSome(queue, consumer, batch, TAKE_TIMEOUT)
                                : single(held != null ? held : queueing.take(queue, consumer, TAKE_TIMEOUT));
                        held = null;
                        if (got.isEmpty()) {
                            continue;
                        }
                        if (batch == 1) {
                            if (consuming) {
                                held = queueing.ackAndTake(queue, consumer, got.get(0), TAKE_TIMEOUT);
                            } else {
                                queueing.ack(queue, consumer, got.get(0));
                            }
                        } else {
                            queueing.ackAll(queue, consumer, got);
                        }
                        record(got, h, seen, duplicates);
                        acked.addAndGet(got.size());
                    }
                    if (held != null) {
                        queueing.ack(queue, consumer, held);
                        record(List.of(held), h, seen, duplicates);
                        acked.incrementAndGet();
                    }
                } catch (Throwable e) {
                    fail(failure, e);
                }
            }, "bench-consumer-" + i));
        }
        Thread producer = new Thread(() -> {
            try {
                long seq = 0;
                int batch = queueing.batch();
                while (producing) {
                    long room = window - (pushed.get() - acked.get());
                    if (room <= 0) {
                        LockSupport.parkNanos(20_000);
                        continue;
                    }
                    if (batch == 1) {
                        queueing.push(queue, run + seq + ":" + System.nanoTime());
                        seq++;
                        pushed.incrementAndGet();
                        continue;
                    }
                    int n = (int) Math.min(room, batch);
                    List<String> chunk = new ArrayList<>(n);
                    long now = System.nanoTime();
                    for (int k = 0; k < n; k++) {
                        chunk.add(run + seq + k + ":" + now);
                    }
                    queueing.pushAll(queue, chunk);
                    seq += n;
                    pushed.addAndGet(n);
                }
            } catch (Throwable e) {
                fail(failure, e);
            }
        }, "bench-producer");
        threads.forEach(Thread::start);
        long start = System.nanoTime();
        producer.start();
        TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        producing = false;
        producer.join();
        long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (acked.get() < pushed.get() && System.nanoTime() < drainUntil && failure[0] == null) {
            TimeUnit.MILLISECONDS.sleep(5);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        consuming = false;
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(10));
        }
        synchronized (failure) {
            if (failure[0] != null) {
                throw new IllegalStateException("a queue thread failed: " + failure[0], failure[0]);
            }
        }
        Histogram all = new Histogram(MAX_NANOS, 3);
        for (Histogram h : latency) {
            all.add(h);
        }
        long pending = queueing.pending(queue, consumers);
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ops", (double) acked.get());
        out.put("seconds", seconds);
        out.put("opsPerSec", acked.get() / seconds);
        out.put("p50Us", all.getValueAtPercentile(50) / 1e3);
        out.put("p99Us", all.getValueAtPercentile(99) / 1e3);
        out.put("pushed", (double) pushed.get());
        out.put("duplicates", (double) duplicates.get());
        out.put("lost", (double) (pushed.get() - (acked.get() - duplicates.get()) - pending));
        return out;
    }

    /** Records the push-to-ack latency of {@code acked}, and duplicates. */
    private static void record(List<String> acked, Histogram h, Set<Long> seen, AtomicLong duplicates) {
        long now = System.nanoTime();
        for (String m : acked) {
            int colon = m.indexOf(':');
            long seq = Long.parseLong(m.substring(0, colon));
            h.recordValue(Math.min(Math.max(0, now - Long.parseLong(m.substring(colon + 1))), MAX_NANOS));
            if (!seen.add(seq)) {
                duplicates.incrementAndGet();
            }
        }
    }

    private static List<String> single(String message) {
        return message == null ? List.of() : List.of(message);
    }

    private void fail(Throwable[] failure, Throwable e) {
        synchronized (failure) {
            if (failure[0] == null) {
                failure[0] = e;
            }
        }
        producing = false;
        consuming = false;
    }

    @Override
    public void close() {
        queueing.close();
    }
}
