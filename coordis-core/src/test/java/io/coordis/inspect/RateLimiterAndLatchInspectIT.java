package io.coordis.inspect;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.WrongTypeException;
import io.coordis.latch.CountDownLatch;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rate limiters and count-down latches as the inspector reads them from a real redis-server: what the stored arrival
 * time and count say by Redis's clock, members of a family each under its own name, waiters counted on the latch's
 * channel, foreign keys of the wrong kind left out of listings and refused by name, and reads that write nothing.
 */
class RateLimiterAndLatchInspectIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis coordis;
    private Inspector inspector;
    private RespClient raw;

    @BeforeEach
    void connect() {
        coordis = TestClients.connect(redis.uri());
        inspector = coordis.inspector();
        raw = RespClient.connect(redis.server());
    }

    @AfterEach
    void disconnect() {
        raw.close();
        coordis.close();
    }

    @Test
    void aBusyLimiterShowsHowLongUntilItIsIdleByRedissClockAndNoLimit() throws Exception {
        // one permit every 6 s: a full burst of 10 puts the arrival time a minute ahead, whatever the machine's pace
        RateLimiter api = coordis.rateLimiter("rl-in:api", RateLimit.parse("10/1m"));
        assertThat(inspector.rateLimiter(Prefixed.key("rl-in:api"))).as("never used: no key").isEmpty();
        Instant before = Instant.now();
        assertThat(api.tryAcquire(10).granted()).isTrue();
        assertThat(api.forKey("alice").tryAcquire().granted()).isTrue();

        RateLimiterState state = inspector.rateLimiter(Prefixed.key("rl-in:api")).orElseThrow();
        assertThat(state.kind()).isEqualTo(ObjectKind.RATE_LIMITER);
        assertThat(state.idle()).isFalse();
        assertThat(state.busyFor()).as("%s", state).isBetween(Duration.ofSeconds(40), Duration.ofSeconds(60));
        assertThat(state.ttl()).as("the key expires at the arrival time").hasValueSatisfying(ttl ->
                assertThat(ttl).isBetween(Duration.ofSeconds(40), Duration.ofSeconds(61)));
        assertThat(state.theoreticalArrival()).isBetween(before.plusSeconds(40), Instant.now().plusSeconds(61));

        RateLimiterState alice = inspector.rateLimiter(Prefixed.key("rl-in:api:alice")).orElseThrow();
        assertThat(alice.busyFor()).as("one permit of ten: a tenth of the minute")
                .isBetween(Duration.ofSeconds(1), Duration.ofSeconds(6));
        assertThat(inspector.rateLimiters(Prefixed.key("rl-in:*"))).extracting(RateLimiterState::name)
                .containsExactly(Prefixed.key("rl-in:api"), Prefixed.key("rl-in:api:alice"));
        assertThat(inspector.list(ObjectKind.RATE_LIMITER, Prefixed.key("rl-in:api:*")))
                .extracting(ObjectState::name).containsExactly(Prefixed.key("rl-in:api:alice"));
        assertThat(inspector.locks("*" + Prefixed.key("rl-in") + "*")).as("its key is no lock").isEmpty();
    }

    @Test
    void anArrivalTimeInThePastIsIdleAndForeignValuesAreNoRateLimiters() throws Exception {
        // another client's limiter, written with a fraction and an exponent, and left without an expiry
        raw.command("SET", Prefixed.derived("rl-in:old", "rate"), "1.5e15");
        raw.command("SET", Prefixed.derived("rl-in:junk", "rate"), "not a time", "PX", "60000");
        raw.command("LPUSH", Prefixed.derived("rl-in:list", "rate"), "x");

        RateLimiterState old = inspector.rateLimiter(Prefixed.key("rl-in:old")).orElseThrow();
        assertThat(old.idle()).isTrue();
        assertThat(old.busyFor()).isZero();
        assertThat(old.ttl()).isEmpty();
        assertThat(old.theoreticalArrival()).isEqualTo(Instant.ofEpochSecond(1_500_000_000L));
        assertThat(inspector.rateLimiters(Prefixed.key("rl-in:*"))).as("the foreign keys are left out")
                .extracting(RateLimiterState::name).containsExactly(Prefixed.key("rl-in:old"));
        assertThatThrownBy(() -> inspector.rateLimiter(Prefixed.key("rl-in:junk")))
                .isInstanceOf(WrongTypeException.class).hasMessageContaining("no rate limiter's arrival time");
        assertThatThrownBy(() -> inspector.rateLimiter(Prefixed.key("rl-in:list")))
                .isInstanceOf(WrongTypeException.class)
                .hasMessage("key '" + Prefixed.derived("rl-in:list", "rate") + "' holds a list, not a rate limiter");
    }

    @Test
    void aLatchShowsItsCountItsWaitersAndWhenItOpens() throws Exception {
        CountDownLatch batch = coordis.countDownLatch("latch-in:batch", 3, Duration.ofHours(1));
        assertThat(batch.countDown()).isEqualTo(2);
        CompletableFuture<Boolean> waiting = batch.awaitAsync(Duration.ofMinutes(2));

        LatchState closed = eventually(() -> read("latch-in:batch"), s -> s.waiters() == 1);
        assertThat(closed.count()).isEqualTo(2);
        assertThat(closed.open()).isFalse();
        assertThat(closed.kind()).isEqualTo(ObjectKind.LATCH);
        assertThat(closed.ttl()).hasValueSatisfying(ttl ->
                assertThat(ttl).isBetween(Duration.ofMinutes(50), Duration.ofHours(1)));
        assertThat(inspector.latches(Prefixed.key("latch-in:*"))).as("the same, but for the TTL, which runs down")
                .singleElement().satisfies(l -> assertThat(l).usingRecursiveComparison().ignoringFields("ttl")
                        .isEqualTo(closed));
        assertThat(inspector.signals("*" + Prefixed.key("latch-in") + "*")).as("its channel is no signal").isEmpty();

        batch.countDown();
        batch.countDown();
        assertThat(waiting.get(60, TimeUnit.SECONDS)).isTrue();
        LatchState open = eventually(() -> read("latch-in:batch"), s -> s.waiters() == 0);
        assertThat(open.open()).isTrue();
        assertThat(open.count()).isZero();
        assertThat(inspector.latch(Prefixed.key("latch-in:never"))).isEmpty();
    }

    @Test
    void aLatchKeyHoldingNoCountIsLeftOutOfListingsAndRefusedByName() throws Exception {
        coordis.countDownLatch("latch-in:good", 2, Duration.ofMinutes(5)).countDown();
        raw.command("SET", Prefixed.derived("latch-in:junk", "latch"), "many");
        raw.command("HSET", Prefixed.derived("latch-in:hash", "latch"), "f", "v");

        assertThat(inspector.latches(Prefixed.key("latch-in:*"))).extracting(LatchState::name)
                .containsExactly(Prefixed.key("latch-in:good"));
        assertThatThrownBy(() -> inspector.latch(Prefixed.key("latch-in:junk")))
                .isInstanceOf(WrongTypeException.class).hasMessageContaining("no latch count");
        assertThatThrownBy(() -> inspector.latch(Prefixed.key("latch-in:hash")))
                .isInstanceOf(WrongTypeException.class)
                .hasMessage("key '" + Prefixed.derived("latch-in:hash", "latch") + "' holds a hash, not a latch");
    }

    /** The referee of read-only: a reader that stored what it did not find (as a latch's first use does) fails it. */
    @Test
    void readingWritesNothingNotEvenForNamesThatHaveNoKey() throws Exception {
        coordis.rateLimiter("ro-in:api", RateLimit.parse("5/1m")).tryAcquire(5);
        coordis.countDownLatch("ro-in:batch", 2, Duration.ofMinutes(5)).countDown();
        String ours = "*" + Prefixed.key("ro-in") + "*";
        Set<?> keys = Set.copyOf((List<?>) raw.command("KEYS", ours));
        Object arrival = raw.command("GET", Prefixed.derived("ro-in:api", "rate"));
        for (String name : List.of("ro-in:api", "ro-in:batch", "ro-in:none")) {
            inspector.rateLimiter(Prefixed.key(name));
            inspector.latch(Prefixed.key(name));
        }
        inspector.rateLimiters(Prefixed.key("*"));
        inspector.latches(Prefixed.key("*"));
        assertThat(Set.copyOf((List<?>) raw.command("KEYS", ours))).as("no key made").isEqualTo(keys);
        assertThat(raw.command("GET", Prefixed.derived("ro-in:api", "rate"))).isEqualTo(arrival);
        assertThat(raw.command("GET", Prefixed.derived("ro-in:batch", "latch"))).isEqualTo("1");
    }

    private LatchState read(String name) throws InterruptedException {
        return inspector.latch(Prefixed.key(name)).orElseThrow();
    }

    /** Reads until {@code done} holds, for up to 30 s: subscriptions reach Redis in their own time. */
    private static <T> T eventually(Reader<T> read, Predicate<T> done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        T last = read.read();
        while (!done.test(last) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            last = read.read();
        }
        assertThat(done.test(last)).as("still %s after 30 s", last).isTrue();
        return last;
    }

    private interface Reader<T> {
        T read() throws InterruptedException;
    }
}
