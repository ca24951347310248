package io.coordis.internal.lock;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LocalQueueTest {
    private final LocalQueue q = new LocalQueue();
    private final java.util.concurrent.atomic.AtomicInteger discarded = new java.util.concurrent.atomic.AtomicInteger();
    /** A hand-over whose discard is counted. */
    private final LocalQueue.Gift gift = new LocalQueue.Gift("t1", 7, 0, 1, 0, false, discarded::incrementAndGet, null);

    @Test
    void onePermitPerKeyAndEntriesDoNotLeak() throws Exception {
        LocalQueue.Permit a = q.tryEnter("k");
        assertThat(a).isNotNull();
        assertThat(q.tryEnter("k")).isNull();
        assertThat(q.tryEnter("other")).isNotNull().satisfies(LocalQueue.Permit::close);
        java.util.concurrent.CompletableFuture<LocalQueue.Permit> gaveUp = q.enter("k");
        assertThat(gaveUp).isNotDone();
        gaveUp.complete(null); // the waiter gives up
        a.close();
        a.close(); // idempotent: must not hand out a second permit
        LocalQueue.Permit b = q.tryEnter("k");
        assertThat(b).isNotNull();
        assertThat(q.tryEnter("k")).isNull();
        b.close();
        assertThat(q.size()).isZero();
    }

    @Test
    void aGiftGoesToTheNextPermitOnceAndAnUnclaimedOneIsDiscardedOnce() throws Exception {
        // claimed by the next permit: never discarded
        LocalQueue.Permit holder = q.tryEnter("k");
        holder.leave(gift);
        java.util.concurrent.CompletableFuture<LocalQueue.Permit> waiter = enterLater(q, holder);
        holder.close();
        LocalQueue.Permit next = waiter.get(10, TimeUnit.SECONDS);
        assertThat(next.claimGift()).isSameAs(gift);
        assertThat(next.claimGift()).isNull();
        next.close();
        assertThat(discarded).hasValue(0);

        // the next permit does not claim it (another lock kind): discarded when that permit closes
        holder = q.tryEnter("k");
        holder.leave(gift);
        holder.close();
        q.tryEnter("k").close();
        assertThat(discarded).hasValue(1);

        // nobody comes any more (the waiter gave up): discarded when the entry goes
        holder = q.tryEnter("k");
        assertThat(holder.othersWaiting()).isFalse();
        holder.leave(gift);
        holder.close();
        assertThat(discarded).hasValue(2);
        assertThat(q.size()).isZero();
    }

    @Test
    void handOnPassesTheGiftAndThePlaceFromAnotherThreadOnceAndNotAfterAClose() throws Exception {
        // handed on from a thread other than the holder's: the waiter gets the place and the gift, and the
        // holder's own close afterwards neither discards the gift nor frees a second place
        LocalQueue.Permit holder = q.tryEnter("k");
        java.util.concurrent.CompletableFuture<LocalQueue.Permit> waiter = enterLater(q, holder);
        java.util.concurrent.CompletableFuture<Boolean> handed = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> holder.handOn(gift));
        assertThat(handed.get(10, TimeUnit.SECONDS)).isTrue();
        LocalQueue.Permit next = waiter.get(10, TimeUnit.SECONDS);
        holder.close();
        assertThat(q.tryEnter("k")).as("the place is the waiter's alone").isNull();
        assertThat(next.claimGift()).isSameAs(gift);
        assertThat(holder.handOn(gift)).as("a place is handed on once").isFalse();
        next.close();
        assertThat(discarded).hasValue(0);

        // closed first (the hand-off's answer came too late): handOn leaves nothing, so the caller releases
        LocalQueue.Permit late = q.tryEnter("k");
        late.close();
        assertThat(late.handOn(gift)).isFalse();
        LocalQueue.Permit after = q.tryEnter("k");
        assertThat(after).isNotNull();
        assertThat(after.claimGift()).isNull();
        after.close();

        // handed on with nobody waiting: the gift is discarded once, when the entry goes
        LocalQueue.Permit alone = q.tryEnter("k");
        assertThat(alone.handOn(gift)).isTrue();
        assertThat(discarded).hasValue(1);
        alone.close();
        assertThat(discarded).hasValue(1);
        assertThat(q.size()).isZero();
    }

    /**
     * Whoever gets the place next must not count the holder that handed it on: the holder leaves the line
     * before the place is free. Otherwise the next holder thinks somebody waits behind it and hands the lock
     * on to nobody (a hand-off at Redis whose lock stays held until its gift is discarded). A waiter that
     * keeps trying without parking takes a freed place at once, so it sees any window between the two.
     */
    @Test
    void theNextHolderDoesNotCountTheOneThatHandedThePlaceOn() throws Exception {
        java.util.concurrent.ExecutorService spinner = java.util.concurrent.Executors.newSingleThreadExecutor();
        int countedFormerHolder = 0;
        try {
            for (int round = 0; round < 1_000; round++) {
                LocalQueue.Permit holder = q.tryEnter("k");
                assertThat(holder).isNotNull();
                java.util.concurrent.Future<Boolean> next = spinner.submit(() -> {
                    LocalQueue.Permit p;
                    while ((p = q.tryEnter("k")) == null) {
                        Thread.onSpinWait();
                    }
                    boolean othersWaiting = p.othersWaiting();
                    p.close();
                    return othersWaiting;
                });
                while (!holder.othersWaiting()) {
                    Thread.yield(); // the other thread is trying
                }
                if (round % 2 == 0) {
                    holder.close();
                } else {
                    assertThat(holder.handOn(LocalQueue.Gift.yieldNote())).isTrue();
                }
                if (next.get(10, TimeUnit.SECONDS)) {
                    countedFormerHolder++;
                }
            }
        } finally {
            spinner.shutdownNow();
        }
        assertThat(countedFormerHolder).as("rounds in which the next holder counted the former one as waiting")
                .isZero();
        assertThat(q.size()).isZero();
    }

    /** A waiter queues for "k" behind {@code holder}; its place completes when handed on. */
    private static java.util.concurrent.CompletableFuture<LocalQueue.Permit> enterLater(LocalQueue q,
                                                                                       LocalQueue.Permit holder) {
        java.util.concurrent.CompletableFuture<LocalQueue.Permit> f = q.enter("k");
        assertThat(holder.othersWaiting()).as("waiter queued").isTrue();
        return f;
    }

    @Test
    void waitersAreServedInArrivalOrderAndOneThatGaveUpIsSkipped() throws Exception {
        LocalQueue.Permit first = q.tryEnter("k");
        List<java.util.concurrent.CompletableFuture<LocalQueue.Permit>> places = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            places.add(q.enter("k"));
        }
        places.get(2).cancel(false);
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            places.get(i).thenAccept(p -> {
                order.add(id);
                p.close(); // hands the place on, on this thread
            });
        }
        assertThat(order).isEmpty();
        first.close();
        assertThat(order).containsExactly(0, 1, 3, 4);
        assertThat(q.size()).isZero();
    }

    /**
     * The only waiter giving up just as the place and a gift are handed to it: the gift is discarded once, whether
     * the waiter left the line before or after the place came back.
     */
    @Test
    void aGiftForTheOnlyWaiterThatGaveUpIsDiscardedOnce() throws Exception {
        java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 1_000; round++) {
                LocalQueue.Permit holder = q.tryEnter("k");
                java.util.concurrent.CompletableFuture<LocalQueue.Permit> racing = q.enter("k");
                java.util.concurrent.Future<?> cancel = other.submit(() -> racing.cancel(false));
                assertThat(holder.handOn(gift)).isTrue();
                cancel.get(10, TimeUnit.SECONDS);
                if (!racing.isCancelled()) {
                    assertThat(racing.join().claimGift()).isSameAs(gift);
                    racing.join().close();
                    discarded.incrementAndGet(); // as if: claimed, so not discarded; counted to keep one total
                }
                holder.close();
                assertThat(discarded).as("round %d", round).hasValue(round + 1);
                assertThat(q.size()).isZero();
            }
        } finally {
            other.shutdownNow();
        }
    }

    /** A waiter giving up just as the place is handed to it: the place and the gift go to the next one, once. */
    @Test
    void aWaiterGivingUpAsThePlaceComesPassesItOn() throws Exception {
        java.util.concurrent.ExecutorService other = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 1_000; round++) {
                LocalQueue.Permit holder = q.tryEnter("k");
                holder.leave(gift);
                java.util.concurrent.CompletableFuture<LocalQueue.Permit> racing = q.enter("k");
                java.util.concurrent.CompletableFuture<LocalQueue.Permit> next = q.enter("k");
                java.util.concurrent.Future<?> cancel = other.submit(() -> racing.cancel(false));
                holder.close();
                cancel.get(10, TimeUnit.SECONDS);
                LocalQueue.Permit got = racing.isCancelled() ? next.get(10, TimeUnit.SECONDS) : racing.join();
                assertThat(got.claimGift()).isSameAs(gift);
                got.close();
                if (!racing.isCancelled()) {
                    next.get(10, TimeUnit.SECONDS).close();
                }
                assertThat(q.size()).isZero();
            }
        } finally {
            other.shutdownNow();
        }
        assertThat(discarded).hasValue(0);
    }
}
