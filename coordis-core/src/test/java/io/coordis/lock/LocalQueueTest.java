package io.coordis.lock;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LocalQueueTest {

    @Test
    void onePermitPerKeyAndEntriesDoNotLeak() throws Exception {
        LocalQueue q = new LocalQueue();
        LocalQueue.Permit a = q.tryEnter("k");
        assertThat(a).isNotNull();
        assertThat(q.tryEnter("k")).isNull();
        assertThat(q.tryEnter("other")).isNotNull().satisfies(LocalQueue.Permit::close);
        assertThat(q.enter("k", TimeUnit.MILLISECONDS.toNanos(20))).isNull();
        a.close();
        a.close(); // idempotent: must not hand out a second permit
        LocalQueue.Permit b = q.tryEnter("k");
        assertThat(b).isNotNull();
        assertThat(q.tryEnter("k")).isNull();
        b.close();
        assertThat(q.size()).isZero();
    }

    @Test
    void waitersAreServedInArrivalOrder() throws Exception {
        LocalQueue q = new LocalQueue();
        LocalQueue.Permit first = q.tryEnter("k");
        List<Integer> order = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            CountDownLatch queued = new CountDownLatch(1);
            Thread t = new Thread(() -> {
                try {
                    queued.countDown();
                    LocalQueue.Permit p = q.enter("k", TimeUnit.SECONDS.toNanos(10));
                    order.add(id);
                    p.close();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            t.start();
            queued.await();
            // wait until the thread is parked in the queue before starting the next one
            while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
                Thread.onSpinWait();
            }
            threads.add(t);
        }
        first.close();
        for (Thread t : threads) {
            t.join(10_000);
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
        assertThat(q.size()).isZero();
    }
}
