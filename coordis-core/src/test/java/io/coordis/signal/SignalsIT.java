package io.coordis.signal;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class SignalsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** The seed article's unicast script, verbatim (it runs on Redis 7: its Lua 5.1 still has math.mod). */
    static final String SEED_SINGLE_CAST = """
            local channels = redis.call('pubsub', 'channels', ARGV[1]..'*');
            if #channels == 0 then
            return 0;
            end;
            local index= math.mod(math.floor(tonumber(ARGV[2])), #channels) + 1;
            return redis.call( 'publish', channels[index], ARGV[3]);
            """;

    private Coordis coordis;
    private Signals signals;

    @BeforeEach
    void connect() {
        coordis = TestClients.connect(redis.uri());
        signals = coordis.signals();
    }

    @AfterEach
    void close() {
        coordis.close();
    }

    private RedisServer server() {
        return redis.server();
    }

    /** The subscribers of {@code channel} as the client names it (under the run's key prefix). */
    private long subscribers(String channel) {
        List<?> reply = (List<?>) server().command("PUBSUB", "NUMSUB", Prefixed.key(channel));
        return (Long) reply.get(1);
    }

    /** A plain client subscribed the way the seed's Python wait() does. */
    private static RespClient rawSubscriber(RedisServer server, String channel) {
        RespClient raw = server.client();
        raw.command("SUBSCRIBE", channel);
        return raw;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> nextMessage(RespClient raw) {
        return (List<Object>) raw.read();
    }

    @Test
    void signalIsAPlainPublishThatAnySubscriberReceives() {
        try (RespClient raw = rawSubscriber(server(), Prefixed.key("plain"))) {
            assertThat(signals.signal("plain", "hello")).isEqualTo(1);
            assertThat(nextMessage(raw)).containsExactly("message", Prefixed.key("plain"), "hello");
        }
        assertThat(signals.signal("nobody-listens", "x")).isZero();
    }

    @Test
    void plainPublishWakesAWaiter() throws Exception {
        try (Waiter w = signals.waiter("jobs:1:done")) {
            assertThat(subscribers("jobs:1:done")).isEqualTo(1);
            assertThat(w.poll()).isEmpty();
            assertThat(server().command("PUBLISH", Prefixed.key("jobs:1:done"), "ok")).isEqualTo(1L);
            assertThat(w.await(Duration.ofSeconds(5))).contains(new Signal("jobs:1:done", "ok"));
            // a waiter wakes once: later signals do not replace the first
            server().command("PUBLISH", Prefixed.key("jobs:1:done"), "again");
            assertThat(w.await(Duration.ofSeconds(1))).contains(new Signal("jobs:1:done", "ok"));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("jobs:1:done") == 0);
    }

    @Test
    void timeoutIsAnEmptyResultAndTryWaitReturnsAtOnce() throws Exception {
        try (Waiter w = signals.waiter("quiet")) {
            long start = System.nanoTime();
            assertThat(w.await(Duration.ofMillis(200))).isEmpty();
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(190));
            start = System.nanoTime();
            assertThat(w.poll()).isEmpty();
            assertThat(w.await(Duration.ZERO)).isEmpty();
            assertThat(System.nanoTime() - start).isLessThan(TimeUnit.MILLISECONDS.toNanos(50));
        }
        assertThat(signals.await("quiet", Duration.ofMillis(50))).isEmpty();
    }

    @Test
    void signalSentBetweenSubscribingAndAwaitingIsNotLost() throws Exception {
        try (Waiter w = signals.waiter("early")) {
            signals.signal("early", "before-await");
            Thread.sleep(50);
            assertThat(w.await(Duration.ofSeconds(5))).map(Signal::data).contains("before-await");
        }
    }

    @Test
    void awaitIsInterruptibleAndTheWaiterStaysUsable() throws Exception {
        try (Waiter w = signals.waiter("intr")) {
            Thread.currentThread().interrupt();
            assertThatThrownBy(() -> w.await(Duration.ofSeconds(5))).isInstanceOf(InterruptedException.class);
            assertThat(Thread.interrupted()).isFalse();
            signals.signal("intr", "after");
            assertThat(w.await(Duration.ofSeconds(5))).map(Signal::data).contains("after");
        }
    }

    @Test
    void anyOfSeveralChannelsWakesWithTheOneThatFired() throws Exception {
        try (Waiter w = signals.waiterForAny(List.of("a", "b", "c"))) {
            assertThat(w.channels()).containsExactly("a", "b", "c");
            signals.signal("b", "from-b");
            assertThat(w.await(Duration.ofSeconds(5))).contains(new Signal("b", "from-b"));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("a") + subscribers("b") + subscribers("c") == 0);
    }

    @Test
    void allOfSeveralChannelsWaitsForEachWithItsPayload() throws Exception {
        try (Gathering g = signals.gathering(List.of("x", "y", "z"))) {
            signals.signal("z", "3");
            signals.signal("x", "1");
            signals.signal("x", "1-again");
            assertThat(g.await(Duration.ofMillis(200))).isEmpty();
            assertThat(g.received()).containsOnlyKeys("x", "z");
            signals.signal("y", "2");
            Map<String, Signal> all = g.await(Duration.ofSeconds(5)).orElseThrow();
            assertThat(all.keySet()).containsExactly("x", "y", "z");
            assertThat(all.values()).extracting(Signal::data).containsExactly("1", "2", "3");
        }
    }

    @Test
    void patternWaiterUsesPsubscribeAndReportsTheMatchingChannel() throws Exception {
        try (Waiter w = signals.waiterForPattern("build:*:done")) {
            assertThat(server().command("PUBSUB", "NUMPAT")).isEqualTo(1L);
            signals.signal("build:other", "no");
            signals.signal("build:7:done", "yes");
            assertThat(w.await(Duration.ofSeconds(5))).contains(new Signal("build:7:done", "yes"));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> server().command("PUBSUB", "NUMPAT").equals(0L));
    }

    @Test
    void closedWaiterSaysSo() throws Exception {
        Waiter w = signals.waiter("closed");
        CompletableFuture<Signal> f = w.whenSignalled().toCompletableFuture();
        w.close();
        assertThatThrownBy(w::poll).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(f).isCompletedExceptionally();
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("closed") == 0);
    }

    @Test
    void badArgumentsAreRejected() {
        assertThatThrownBy(() -> signals.signal("", "x")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("channel must not be empty");
        assertThatThrownBy(() -> signals.waiterForAny(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> signals.event("e", Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("event TTL must be at least 1ms");
    }

    @Test
    void listenerHearsEveryMessageInOrder() throws Exception {
        List<Signal> heard = new CopyOnWriteArrayList<>();
        try (Subscription s = signals.listen(List.of("feed"), heard::add)) {
            for (int i = 0; i < 100; i++) {
                signals.signal("feed", "m" + i);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 100);
            assertThat(heard).extracting(Signal::data).startsWith("m0", "m1").endsWith("m99");
            assertThat(s.gaps()).isZero();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("feed") == 0);
    }

    @Test
    void patternListenerHearsEveryMatchingChannel() throws Exception {
        List<Signal> heard = new CopyOnWriteArrayList<>();
        try (Subscription s = signals.listenToPattern("t[ab]", heard::add)) {
            signals.signal("ta", "1");
            signals.signal("tc", "x");
            signals.signal("tb", "2");
            await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 2);
            assertThat(heard).containsExactly(new Signal("ta", "1"), new Signal("tb", "2"));
        }
    }

    /**
     * Each unicast signal wakes exactly one waiter: a woken waiter is closed before the next signal (once Redis has
     * dropped its channel), so five signals must wake all five waiters, one more each time, each with its own signal.
     */
    @Test
    void unicastReachesExactlyOneOfSeveralWaiters() throws Exception {
        List<Waiter> waiters = new ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                waiters.add(signals.unicastWaiter("workers:"));
            }
            assertThat(waiters.get(0).channels().get(0)).startsWith("workers:").hasSizeGreaterThan("workers:".length());
            // a broadcast waiter on the bare prefix is not a unicast waiter
            try (Waiter bare = signals.waiter("workers:")) {
                List<Waiter> woken = new ArrayList<>();
                for (int round = 0; round < 5; round++) {
                    int before = round;
                    assertThat(signals.signalOne("workers:", "job" + round)).isEqualTo(1);
                    await().atMost(Duration.ofSeconds(10)).until(() -> wokenCount(waiters) > before);
                    List<Waiter> now = waiters.stream().filter(w -> !woken.contains(w) && w.poll().isPresent()).toList();
                    assertThat(now).as("waiters woken by job%d", round).hasSize(1);
                    assertThat(now.get(0).poll().orElseThrow().data()).isEqualTo("job" + round);
                    woken.add(now.get(0));
                    now.get(0).close();
                    int left = 4 - round;
                    await().atMost(Duration.ofSeconds(10)).until(() -> unicastChannels("workers:") == left);
                }
                assertThat(bare.poll()).isEmpty();
            }
            // every waiter holds the one signal that woke it: a signal delivered twice would leave another undelivered
            assertThat(waiters).extracting(w -> w.poll().orElseThrow().data())
                    .containsExactlyInAnyOrder("job0", "job1", "job2", "job3", "job4");
        } finally {
            waiters.forEach(Waiter::close);
        }
        // close() does not wait for Redis to confirm the UNSUBSCRIBE
        await().atMost(Duration.ofSeconds(5))
                .until(() -> ((List<?>) server().command("PUBSUB", "CHANNELS", Prefixed.key("workers:*"))).isEmpty());
        assertThat(signals.signalOne("workers:", "nobody")).isZero();
    }

    private static long wokenCount(List<Waiter> waiters) {
        return waiters.stream().filter(w -> w.poll().isPresent()).count();
    }

    /** How many unicast channels of {@code prefix} are subscribed at Redis (the bare prefix is not one). */
    private int unicastChannels(String prefix) {
        return ((List<?>) server().command("PUBSUB", "CHANNELS", Prefixed.key(prefix) + "?*")).size();
    }

    @Test
    void unicastChoiceIsSpreadOverWaiters() throws Exception {
        Map<String, Integer> hits = new HashMap<>();
        List<String> ids = new ArrayList<>();
        try (Subscription s = signals.listenToPattern("spread:*", sig -> {
            synchronized (hits) {
                hits.merge(sig.channel(), 1, Integer::sum);
            }
        })) {
            List<Waiter> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                waiters.add(signals.unicastWaiter("spread:"));
                ids.add(waiters.get(i).channels().get(0));
            }
            for (int i = 0; i < 300; i++) {
                // the chosen waiter and the pattern listener
                assertThat(signals.signalOne("spread:", "j")).isEqualTo(2);
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                synchronized (hits) {
                    return hits.values().stream().mapToInt(Integer::intValue).sum() == 300;
                }
            });
            waiters.forEach(Waiter::close);
        }
        assertThat(hits.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(hits.values()).allSatisfy(n -> assertThat(n).isGreaterThan(50));
    }

    @Test
    void unicastPrefixWithGlobCharactersMatchesOnlyItself() throws Exception {
        try (Waiter literal = signals.unicastWaiter("q[1]*");
             RespClient lookalike = rawSubscriber(server(), Prefixed.key("q1-lookalike"))) {
            assertThat(signals.signalOne("q[1]*", "only-me")).isEqualTo(1);
            assertThat(literal.await(Duration.ofSeconds(5))).map(Signal::data).contains("only-me");
            lookalike.timeout(Duration.ofMillis(200));
            assertThatThrownBy(lookalike::read).isInstanceOf(java.io.UncheckedIOException.class);
        }
    }

    @Test
    void seedSignalSingleScriptWakesACoordisUnicastWaiter() throws Exception {
        try (Waiter w = signals.unicastWaiter("seedjobs:");
             RespClient raw = server().client()) {
            // signal_single(channel, data): EVAL script 0 channel rand data
            assertThat(raw.command("EVAL", SEED_SINGLE_CAST, "0", Prefixed.key("seedjobs:"), "31337", "from-python"))
                    .isEqualTo(1L);
            assertThat(w.await(Duration.ofSeconds(5))).map(Signal::data).contains("from-python");
            assertThat(raw.command("EVAL", SEED_SINGLE_CAST, "0", Prefixed.key("nobody:"), "1", "x")).isEqualTo(0L);
        }
    }

    @Test
    void coordisSignalOneReachesASeedWaitSingleSubscriber() {
        // wait_single(channel, myid) subscribes to channel + myid
        try (RespClient raw = rawSubscriber(server(), Prefixed.key("seedq:" + "4711"))) {
            assertThat(signals.signalOne("seedq:", "from-java")).isEqualTo(1);
            assertThat(nextMessage(raw)).containsExactly("message", Prefixed.key("seedq:4711"), "from-java");
        }
    }

    @Test
    void latchedEventWakesALateWaiterAtOnce() throws Exception {
        Event e = signals.event("deploy:done", Duration.ofSeconds(30));
        assertThat(e.key()).isEqualTo(Prefixed.derived("deploy:done", "event"));
        assertThat(e.peek()).isEmpty();
        assertThat(e.await(Duration.ofMillis(50))).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("deploy:done") == 0);
        try (RespClient raw = rawSubscriber(server(), Prefixed.key("deploy:done"))) {
            assertThat(e.signal("v42")).isEqualTo(1);
            assertThat(nextMessage(raw)).containsExactly("message", Prefixed.key("deploy:done"), "v42");
        }
        long pttl = (Long) server().command("PTTL", Prefixed.derived("deploy:done", "event"));
        assertThat(pttl).isBetween(25_000L, 30_000L);
        try (Waiter late = e.waiter()) {
            assertThat(late.poll()).contains(new Signal("deploy:done", "v42"));
        }
        assertThat(e.clear()).isTrue();
        assertThat(e.clear()).isFalse();
        assertThat(e.await(Duration.ofMillis(50))).isEmpty();
    }

    @Test
    void latchedEventWakesAWaiterThatWasAlreadyWaiting() throws Exception {
        Event e = signals.event("ready", Duration.ofSeconds(5));
        try (Waiter w = e.waiter()) {
            assertThat(w.poll()).isEmpty();
            e.signal("now");
            assertThat(w.await(Duration.ofSeconds(5))).map(Signal::data).contains("now");
        }
    }

    @Test
    void latchedSignalExpiresWithItsTtl() throws Exception {
        Event e = signals.event("{tagged}short", Duration.ofMillis(100));
        assertThat(e.key()).isEqualTo(Prefixed.derived("{tagged}short", "event"));
        e.signal("soon-gone");
        assertThat(e.peek()).contains("soon-gone");
        Thread.sleep(250);
        assertThat(e.peek()).isEmpty();
        assertThat(e.await(Duration.ofMillis(50))).isEmpty();
    }

    @Test
    void awaitingFromSeveralThreadsSeesTheSameSignal() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try (Waiter w = signals.waiter("shared")) {
            List<Future<Optional<Signal>>> results = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                results.add(pool.submit(() -> w.await(Duration.ofSeconds(5))));
            }
            Thread.sleep(50);
            signals.signal("shared", "all");
            for (Future<Optional<Signal>> r : results) {
                assertThat(r.get(5, TimeUnit.SECONDS)).map(Signal::data).contains("all");
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
