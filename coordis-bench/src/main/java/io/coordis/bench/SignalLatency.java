package io.coordis.bench;

import org.HdrHistogram.Histogram;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Signal-to-wake latency at a steady rate (open loop): a sender publishes {@code perSecond} signals a
 * second on a fixed schedule, each carrying its send time; the client's subscriber hands each to a
 * queue, and a receiving thread blocked on that queue records how long after the send it woke. The
 * same path for every client: only the publish and the delivery to the callback differ.
 *
 * <p>Figures: {@code ops} (signals received), {@code seconds}, {@code p50Us}, {@code p90Us},
 * {@code p99Us}, {@code maxUs}, {@code sent}, {@code lost} (sent but not received within 2 s after the
 * last send).
 */
final class SignalLatency implements Workload {
    private static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(60);

    private final Signaling signaling;
    private final String channel;
    private final int perSecond;
    private final BlockingQueue<String> inbox = new LinkedBlockingQueue<>();

    SignalLatency(Signaling signaling, String channel, int perSecond) throws InterruptedException {
        this.signaling = signaling;
        this.channel = channel;
        this.perSecond = perSecond;
        signaling.subscribe(channel, inbox::add);
    }

    @Override
    public Map<String, Double> run(Duration duration) throws Exception {
        inbox.clear();
        long sent = Math.max(1, duration.toNanos() * perSecond / TimeUnit.SECONDS.toNanos(1));
        Histogram latency = new Histogram(MAX_NANOS, 3);
        long[] received = {0};
        Thread receiver = new Thread(() -> {
            try {
                while (received[0] < sent) {
                    String m = inbox.poll(2, TimeUnit.SECONDS);
                    long now = System.nanoTime();
                    if (m == null) {
                        return;
                    }
                    latency.recordValue(Math.min(Math.max(0, now - Long.parseLong(m)), MAX_NANOS));
                    received[0]++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "bench-receiver");
        receiver.start();
        long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
        long start = System.nanoTime();
        for (long i = 0; i < sent; i++) {
            long wait = start + i * interval - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            signaling.publish(channel, Long.toString(System.nanoTime()));
        }
        receiver.join();
        double seconds = (System.nanoTime() - start) / 1e9;
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("ops", (double) received[0]);
        out.put("seconds", seconds);
        out.put("opsPerSec", received[0] / seconds);
        out.put("p50Us", latency.getValueAtPercentile(50) / 1e3);
        out.put("p90Us", latency.getValueAtPercentile(90) / 1e3);
        out.put("p99Us", latency.getValueAtPercentile(99) / 1e3);
        out.put("maxUs", latency.getMaxValue() / 1e3);
        out.put("sent", (double) sent);
        out.put("lost", (double) (sent - received[0]));
        return out;
    }

    @Override
    public void close() {
        signaling.close();
    }
}
