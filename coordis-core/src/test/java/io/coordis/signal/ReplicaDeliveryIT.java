package io.coordis.signal;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Many signals at a steady rate reach a listener on the master and one on each replica (PUBLISH is
 * replicated), and a listener on all three hears each exactly once, in order. The count and rate are
 * system properties ({@code coordis.signals.count}, {@code coordis.signals.rate} per second).
 */
class ReplicaDeliveryIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.withReplicas(2);

    private static final int COUNT = Integer.getInteger("coordis.signals.count", 100_000);
    private static final int RATE = Integer.getInteger("coordis.signals.rate", 4_000);

    /** Checks that messages 0, 1, 2, ... arrive in order, each once. */
    static final class InOrder implements SignalListener {
        volatile int next;
        volatile String problem;

        @Override
        public void onSignal(Signal signal) {
            int n = Integer.parseInt(signal.data());
            if (n != next && problem == null) {
                problem = "expected " + next + " but got " + n;
            }
            next = n + 1;
        }

        @Override
        public void onGap(String node) {
            problem = "gap at " + node;
        }
    }

    @Test
    void everySignalReachesListenersOnTheMasterAndOnEachReplica(RedisGroup group) throws Exception {
        List<Coordis> clients = new ArrayList<>();
        List<Subscription> subscriptions = new ArrayList<>();
        List<InOrder> listeners = new ArrayList<>();
        try {
            for (String uri : group.uris()) {
                clients.add(TestClients.connect(uri));
            }
            Coordis merged = TestClients.builder().url(group.master().uri())
                    .replicaUrls(group.replicas().stream().map(r -> r.uri()).toList()).connect();
            clients.add(merged);
            for (Coordis c : clients) {
                InOrder l = new InOrder();
                listeners.add(l);
                subscriptions.add(c.signals().listen(List.of("stream"), l));
            }
            Signals publisher = clients.get(0).signals();
            long start = System.nanoTime();
            long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
            for (int i = 0; i < COUNT; i++) {
                long due = start + i * interval;
                long early = due - System.nanoTime();
                if (early > 0) {
                    LockSupport.parkNanos(early);
                }
                publisher.signal("stream", Integer.toString(i));
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            await().atMost(Duration.ofSeconds(20)).until(() -> listeners.stream().allMatch(l -> l.next == COUNT));
            System.out.printf("replica delivery: %d signals in %.1f s (%.0f/s) to master, 2 replicas and a merged listener%n",
                    COUNT, seconds, COUNT / seconds);
            for (int i = 0; i < listeners.size(); i++) {
                assertThat(listeners.get(i).problem).as("listener %d", i).isNull();
                assertThat(listeners.get(i).next).as("listener %d", i).isEqualTo(COUNT);
            }
            Thread.sleep(200);
            assertThat(listeners.get(3).problem).as("merged listener heard a copy twice").isNull();
            assertThat(subscriptions).allSatisfy(s -> assertThat(s.gaps()).isZero());
        } finally {
            subscriptions.forEach(Subscription::close);
            clients.forEach(Coordis::close);
        }
    }
}
