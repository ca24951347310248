package io.coordis.safety;

import io.coordis.CommandRejectedException;
import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.TestClients;
import io.coordis.WrongTypeException;
import io.coordis.election.ElectionOptions;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.ReliableQueue;
import io.coordis.latch.CountDownLatch;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.signal.Signals;
import io.coordis.signal.Waiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RedisServerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * Bad input and a hostile environment, for every primitive: null, empty and too long names, keys of the wrong
 * type (including a name that is another object's derived key), TTLs and signals over their limits, Redis gone
 * after connecting, out of memory, a read-only replica, scripts flushed a thousand times, interrupts during
 * blocking calls; for the rate limiter, the latch and the fair lock also foreign values in their own keys, huge
 * counts and odd characters in names. Each gets a typed error naming the object and the cause within its
 * deadline + 1 s, and leaves the other object untouched.
 */
class HostileInputIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final LockOptions FAIR = LockOptions.defaults().withFair(true);

    /** One operation per primitive on the object called {@code name}. */
    private static Map<String, Function<String, Object>> operations(Coordis c) {
        Map<String, Function<String, Object>> ops = new LinkedHashMap<>();
        ops.put("lock", name -> c.lock(name).tryAcquire().map(l -> {
            l.close();
            return "acquired";
        }));
        ops.put("legacy lock", name -> c.legacyLock(name, LockOptions.defaults()).tryAcquire().map(l -> {
            l.close();
            return "acquired";
        }));
        ops.put("election", name -> call(() -> {
            try (var e = c.election(name, ElectionOptions.defaults().withTtl(Duration.ofSeconds(2)))) {
                return e.campaign(Duration.ofMillis(200));
            }
        }));
        ops.put("counter election", name -> call(() -> c.counterElection(name, Duration.ofSeconds(20)).round()));
        ops.put("queue", name -> call(() -> c.queue(name).push("m")));
        ops.put("reliable queue", name -> call(() -> c.reliableQueue(name).push("m")));
        ops.put("signal", name -> c.signals().signal(name, "d"));
        ops.put("latched event", name -> c.signals().event(name, Duration.ofSeconds(5)).signal("d"));
        ops.put("rate limiter", name -> c.rateLimiter(name, RateLimit.parse("10/1s")).tryAcquire());
        ops.put("latch", name -> c.countDownLatch(name, 2, Duration.ofMinutes(1)).countDown());
        ops.put("fair lock", name -> c.lock(name, FAIR).tryAcquire().map(l -> {
            l.close();
            return "acquired";
        }));
        return ops;
    }

    /** The key a primitive of {@code kind} named {@code name} keeps its state in. */
    private static String stateKey(String kind, String name) {
        return switch (kind) {
            case "latched event" -> Prefixed.derived(name, "event");
            case "rate limiter" -> Prefixed.derived(name, "rate");
            case "latch" -> Prefixed.derived(name, "latch");
            default -> Prefixed.key(name);
        };
    }

    /**
     * How each primitive's failures name the object {@code name}. A signal's is the channel; a counter election,
     * made on a key, names its Redis key. (Connecting, as in the maxclients test, concerns no object: that error
     * names the server only.)
     */
    private static String object(String kind, String name) {
        return switch (kind) {
            case "lock", "election", "queue", "legacy lock" -> kind + " '" + name + "'";
            case "counter election" -> kind + " '" + Prefixed.key(name) + "'";
            case "reliable queue" -> "queue '" + name + "'";
            case "signal" -> "channel '" + name + "'";
            case "latched event" -> "event '" + name + "'";
            case "rate limiter", "latch" -> kind + " '" + name + "'";
            case "fair lock" -> "lock '" + name + "'";
            default -> throw new IllegalArgumentException(kind);
        };
    }

    @Test
    void nullAndEmptyNamesAreRefusedNamingTheProblem() {
        try (Coordis c = TestClients.connect(redis.uri())) {
            for (Map.Entry<String, Function<String, Object>> op : operations(c).entrySet()) {
                Throwable nul = catchThrowable(() -> op.getValue().apply(null));
                assertThat(nul).as(op.getKey() + " with a null name").isInstanceOfAny(NullPointerException.class,
                        IllegalArgumentException.class);
                assertThat(nul.getMessage()).as(op.getKey() + " with a null name").isNotBlank();
                Throwable empty = catchThrowable(() -> op.getValue().apply(""));
                assertThat(empty).as(op.getKey() + " with an empty name").isInstanceOf(IllegalArgumentException.class);
                assertThat(empty.getMessage()).as(op.getKey() + " with an empty name").containsAnyOf("empty", "blank");
            }
            assertThat(redis.server().command("DBSIZE")).as("nothing written").isEqualTo(0L);
        }
    }

    @Test
    void aNameOverTheLimitIsRefusedForEveryPrimitiveBeforeAnythingIsSent() throws Exception {
        int limit = io.coordis.internal.Keys.MAX_NAME_BYTES;
        String longest = "n".repeat(limit);
        String tooLong = "€".repeat(limit / 3 + 1); // 342 chars: few enough chars, too many bytes
        long bytes = tooLong.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        try (Coordis c = TestClients.connect(redis.uri())) {
            Map<String, Function<String, Object>> ops = operations(c);
            Signals signals = c.signals();
            ops.put("waiter", name -> call(() -> signals.waiter(name)));
            ops.put("unicast waiter", name -> call(() -> signals.unicastWaiter(name)));
            ops.put("pattern waiter", name -> call(() -> signals.waiterForPattern(name)));
            ops.put("unicast signal", name -> signals.signalOne(name, "d"));
            ops.put("event waiter", name -> call(() -> signals.event(name, Duration.ofSeconds(5)).waiter()));
            long before = commandsProcessed();
            for (Map.Entry<String, Function<String, Object>> op : ops.entrySet()) {
                Throwable t = catchThrowable(() -> op.getValue().apply(tooLong));
                assertThat(t).as(op.getKey() + " with a %d-byte name", bytes).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("is " + bytes + " bytes long in UTF-8, over the limit of " + limit + " bytes");
            }
            // the first reading's INFO, and its AUTH when the test kit logs in as administrator (least-privilege pass)
            long own = redis.server().isDefaultUserRestricted() ? 2 : 1;
            assertThat(commandsProcessed() - before).as("commands Redis ran meanwhile: the first INFO only").isEqualTo(own);
            assertThat(redis.server().command("DBSIZE")).as("nothing written").isEqualTo(0L);
            assertThat(redis.server().command("PUBSUB", "NUMSUB", Prefixed.key(tooLong)))
                    .isEqualTo(List.of(Prefixed.key(tooLong), 0L));
            assertThat(c.lock(longest).tryAcquire()).as("a name of exactly the limit works").isPresent();
        }
        try (io.coordis.testkit.RedisGroup masters = io.coordis.testkit.RedisGroup.masters(3);
             Coordis redlock = TestClients.connect(masters.uris())) {
            assertThatThrownBy(() -> redlock.lock(tooLong)).as("Redlock").isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is " + bytes + " bytes long");
            for (RedisServer master : masters.servers()) {
                assertThat(master.command("DBSIZE")).as("nothing written on " + master.address()).isEqualTo(0L);
            }
        }
    }

    @Test
    void signalDataOverTheMaximumIsRefusedBeforeSendingNamingTheSizeAndTheLimit() throws Exception {
        assertThatThrownBy(() -> Coordis.builder().maxSignalBytes(0)).hasMessageContaining("between 1 byte and 512 MiB");
        try (Coordis c = TestClients.builder().url(redis.uri()).maxSignalBytes(16).connect();
             Waiter waiter = c.signals().waiter("big")) {
            Signals signals = c.signals();
            Map<String, Function<String, Object>> sends = new LinkedHashMap<>();
            sends.put("channel 'big'", data -> signals.signal("big", data));
            sends.put("unicast channel 'big'", data -> signals.signalOne("big", data));
            sends.put("event 'big'", data -> signals.event("big", Duration.ofSeconds(5)).signal(data));
            for (Map.Entry<String, Function<String, Object>> send : sends.entrySet()) {
                for (String data : List.of("x".repeat(17), "€".repeat(6))) {
                    int size = data.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
                    assertThatThrownBy(() -> send.getValue().apply(data)).as(send.getKey() + ", " + size + " bytes")
                            .isInstanceOf(IllegalArgumentException.class).hasMessage("signal for " + send.getKey()
                                    + " is " + size + " bytes in UTF-8, over the maximum of 16 "
                                    + "(Coordis.Builder.maxSignalBytes); nothing was sent");
                }
            }
            assertThat(waiter.await(Duration.ofMillis(300))).as("nothing was published").isEmpty();
            assertThat(redis.server().command("DBSIZE")).as("no event recorded").isEqualTo(0L);
            assertThat(signals.signal("big", "x".repeat(16))).as("exactly the maximum is sent").isEqualTo(1L);
            assertThat(waiter.await(Duration.ofSeconds(2))).map(io.coordis.signal.Signal::data).contains("x".repeat(16));
        }
        try (Coordis c = TestClients.connect(redis.uri())) {
            int max = io.coordis.queue.QueueOptions.defaults().maxMessageBytes();
            assertThatThrownBy(() -> c.signals().signal("big", "x".repeat(max + 1)))
                    .as("by default, the queue's maximum message size").hasMessageContaining("over the maximum of " + max);
            assertThat(c.signals().event("big", Duration.ofSeconds(5)).signal("x".repeat(max))).isZero();
            assertThat(redis.server().command("STRLEN", Prefixed.derived("big", "event"))).isEqualTo((long) max);
        }
    }

    @Test
    void ttlsOverTheirBoundAreRefusedAndTheLongestAllowedOnesWorkAtRedis() throws Exception {
        Duration max = Duration.ofDays(30);
        assertThat(List.of(LockOptions.MAX_TTL, ElectionOptions.MAX_TTL, io.coordis.queue.QueueOptions.MAX_INTERVAL,
                io.coordis.signal.Event.MAX_TTL)).containsOnly(max);
        try (Coordis c = TestClients.connect(redis.uri())) {
            assertThatThrownBy(() -> c.counterElection("ttl:counter", max.plusSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("counter election term must be at most 30d, was 2592001s");
            assertThatThrownBy(() -> c.signals().event("ttl:event", Duration.ofSeconds(Long.MAX_VALUE)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("event TTL must be at most 30d, was " + Long.MAX_VALUE + "s");
            assertThatThrownBy(() -> c.countDownLatch("ttl:latch", 1, max.plusSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("latch expiry must be at most 30d, was 2592001s");
            assertThat(redis.server().command("DBSIZE")).as("nothing written").isEqualTo(0L);

            long maxMillis = max.toMillis();
            CountDownLatch longest = c.countDownLatch("ttl:latch", 2, max);
            assertThat(longest.countDown()).isEqualTo(1L);
            assertThat((Long) redis.server().command("PTTL", longest.key())).isBetween(maxMillis - 60_000, maxMillis);
            try (Lease lease = c.lock("ttl:lock", LockOptions.defaults().withTtl(max).withAutoRenew(false))
                    .tryAcquire().orElseThrow()) {
                assertThat(lease.remainingValidity()).isGreaterThan(max.minusDays(1));
                assertThat((Long) redis.server().command("PTTL", Prefixed.key("ttl:lock")))
                        .isBetween(maxMillis - 60_000, maxMillis);
            }
            try (var e = c.election("ttl:election", ElectionOptions.defaults().withTtl(max))) {
                assertThat(e.campaign(Duration.ofSeconds(2))).isPresent();
                assertThat((Long) redis.server().command("PTTL", Prefixed.key("ttl:election")))
                        .isBetween(maxMillis - 60_000, maxMillis);
            }
            assertThat(c.counterElection("ttl:counter", max).round()).isTrue();
            assertThat((Long) redis.server().command("TTL", Prefixed.key("ttl:counter")))
                    .isBetween(max.toSeconds() - 60, max.toSeconds());
            c.signals().event("ttl:event", max).signal("d");
            assertThat((Long) redis.server().command("PTTL", Prefixed.derived("ttl:event", "event")))
                    .isBetween(maxMillis - 60_000, maxMillis);
            ReliableQueue q = c.reliableQueue("ttl:queue", io.coordis.queue.QueueOptions.defaults()
                    .withHeartbeatTtl(max).withSweepInterval(max));
            try (Consumer consumer = q.consumer()) {
                q.push("m");
                assertThat(consumer.take(Duration.ofSeconds(2))).isPresent();
                assertThat((Long) redis.server().command("PTTL", Prefixed.derived("ttl:queue", "hb:" + consumer.id())))
                        .isBetween(maxMillis - 60_000, maxMillis);
            }
        }
    }

    @Test
    void aKeyOfAnotherTypeIsAWrongTypeErrorNamingItAndIsLeftAlone() {
        try (Coordis c = TestClients.connect(redis.uri())) {
            for (Map.Entry<String, Function<String, Object>> op : operations(c).entrySet()) {
                if (op.getKey().equals("signal")) {
                    continue; // a channel is no key: no type to be wrong
                }
                String name = "hostile:" + op.getKey().replace(' ', '-');
                // a string for the list-based primitives, a hash for the others; an event keeps its state in
                // {name}:event, a rate limiter in {name}:rate, a latch in {name}:latch
                boolean listBased = op.getKey().contains("queue");
                String key = stateKey(op.getKey(), name);
                if (listBased) {
                    redis.server().command("SET", key, "not a list");
                } else {
                    redis.server().command("HSET", key, "field", "value");
                }
                Throwable t = catchThrowable(() -> op.getValue().apply(name));
                assertThat(t).as(op.getKey() + " on a key of another type").isInstanceOf(WrongTypeException.class)
                        .hasMessageContaining(key).hasMessageContaining(object(op.getKey(), name));
                assertThat(redis.server().command("TYPE", key)).as(op.getKey() + ": the foreign key is left alone")
                        .isEqualTo(listBased ? "string" : "hash");
            }
        }
    }

    @Test
    void aNameThatIsAnotherObjectsDerivedKeyNeverCorruptsThatObject() throws Exception {
        try (Coordis c = TestClients.connect(redis.uri())) {
            ReliableQueue q = c.reliableQueue("jobs");
            q.push("j1");
            Consumer consumer = q.consumer();
            var d = consumer.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(q.nack(d.id(), Duration.ZERO)).isNotNull();
            Lease fenced = c.lock("orders").tryAcquire().orElseThrow();
            List<String> derived = new ArrayList<>();
            for (String k : testKeys()) {
                if (!k.equals(Prefixed.key("jobs")) && !k.equals(Prefixed.key("orders"))) {
                    derived.add(k);
                }
            }
            assertThat(derived).as("derived keys exist").isNotEmpty();
            Map<String, Object> before = dump(derived);
            for (String key : derived) {
                for (Map.Entry<String, Function<String, Object>> op : operations(c).entrySet()) {
                    if (op.getKey().equals("latched event") || op.getKey().equals("signal")) {
                        continue; // a channel name is no key (an event's state lives in {name}:event)
                    }
                    Throwable t = catchThrowable(() -> op.getValue().apply(key));
                    assertThat(t).as(op.getKey() + " named " + key).isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining(key).hasMessageContaining("choose another name");
                }
            }
            assertThat(dump(derived)).as("the queue's and the lock's own keys are untouched").isEqualTo(before);
            assertThat(fenced.isHeld()).isTrue();
            fenced.close();
            consumer.close();
        }
    }

    /**
     * Another program's value in a key the rate limiter, the latch or the fair lock's line keeps: a string that is no
     * time, no count, where a sorted set belongs, a hash where a sorted set belongs. A try and a long wait each fail at
     * once with a WrongTypeException naming the key and saying what to do; the value stays as it was.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void foreignValuesInTheNewPrimitivesKeysAreRefusedNamingTheKeyAndLeftAlone() {
        try (Coordis c = TestClients.connect(redis.uri())) {
            Map<String, Call> calls = new LinkedHashMap<>();
            RateLimiter limiter = c.rateLimiter("foreign:rate", RateLimit.parse("10/1s"));
            String rateKey = Prefixed.derived("foreign:rate", "rate");
            redis.server().command("SET", rateKey, "not a time");
            calls.put("rate limiter try", limiter::tryAcquire);
            calls.put("rate limiter wait", () -> limiter.acquire(Duration.ofSeconds(30)));
            calls.put("rate limiter async wait", () -> limiter.acquireAsync(1, Duration.ofSeconds(30)).join());
            CountDownLatch latch = c.countDownLatch("foreign:latch", 2, Duration.ofMinutes(1));
            String latchKey = Prefixed.derived("foreign:latch", "latch");
            redis.server().command("SET", latchKey, "many");
            calls.put("latch count down", latch::countDown);
            calls.put("latch wait", () -> latch.await(Duration.ofSeconds(30)));
            String line = Prefixed.derived("foreign:fair", "line");
            String lapses = Prefixed.derived("foreign:fair", "line-until");
            redis.server().command("SET", line, "not a line");
            calls.put("fair lock try", () -> c.lock("foreign:fair", FAIR).tryAcquire());
            calls.put("fair lock wait", () -> c.lock("foreign:fair", FAIR).acquire(Duration.ofSeconds(30)));
            calls.put("fair lock wait, its lapses a hash", () -> c.lock("foreign:fair", FAIR)
                    .acquire(Duration.ofSeconds(30)));
            Map<String, String> keyOf = Map.of("rate", rateKey, "latch", latchKey, "fair", line);
            for (Map.Entry<String, Call> call : calls.entrySet()) {
                String kind = call.getKey().split(" ")[0];
                String key = call.getKey().endsWith("a hash") ? lapses : keyOf.get(kind);
                if (call.getKey().endsWith("a hash")) {
                    redis.server().command("DEL", line);
                    redis.server().command("HSET", lapses, "a", "b");
                }
                long start = System.nanoTime();
                Throwable t = catchThrowable(() -> call.getValue().call());
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                if (t instanceof java.util.concurrent.CompletionException) {
                    t = t.getCause();
                }
                assertThat(t).as(call.getKey()).isInstanceOf(WrongTypeException.class).hasMessageContaining(key)
                        .hasMessageContaining("choose another name or remove the key");
                assertThat(took).as(call.getKey() + ": a permanent failure is not waited out")
                        .isLessThan(Duration.ofSeconds(5));
            }
            assertThat(redis.server().command("GET", rateKey)).as("the rate key's value").isEqualTo("not a time");
            assertThat(redis.server().command("GET", latchKey)).as("the latch key's value").isEqualTo("many");
            assertThat(redis.server().command("HGETALL", lapses)).as("the lapses key's value")
                    .isEqualTo(List.of("a", "b"));
            assertThat(redis.server().command("EXISTS", Prefixed.key("foreign:fair"))).as("no lock taken")
                    .isEqualTo(0L);
        }
    }

    /**
     * Counts at and past their limits: a latch count above {@link CountDownLatch#MAX_COUNT} and permits past a
     * limit's burst are refused before anything is sent, naming the limit; the largest allowed ones count exactly
     * at Redis.
     */
    @Test
    void hugeCountsAreRefusedNamingTheLimitAndTheLargestAllowedCountExactly() {
        try (Coordis c = TestClients.connect(redis.uri())) {
            assertThatThrownBy(() -> c.countDownLatch("huge:latch", Long.MAX_VALUE, Duration.ofMinutes(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("latch count must be at most 9007199254740991")
                    .hasMessageContaining("was " + Long.MAX_VALUE);
            assertThatThrownBy(() -> RateLimit.parse("99999999999/1s")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("too many permits");
            RateLimit widest = RateLimit.of(Integer.MAX_VALUE, RateLimit.MAX_PERIOD);
            RateLimiter limiter = c.rateLimiter("huge:rate", widest);
            assertThatThrownBy(() -> limiter.tryAcquire(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least 1");
            assertThatThrownBy(() -> c.rateLimiter("huge:small", RateLimit.parse("5/1s")).acquire(6, Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("exceed the burst");
            assertThat(redis.server().command("DBSIZE")).as("nothing written").isEqualTo(0L);

            CountDownLatch largest = c.countDownLatch("huge:latch", CountDownLatch.MAX_COUNT, Duration.ofMinutes(1));
            assertThat(largest.countDown()).isEqualTo(CountDownLatch.MAX_COUNT - 1);
            assertThat(largest.getCount()).isEqualTo(CountDownLatch.MAX_COUNT - 1);
            assertThat(redis.server().command("GET", largest.key())).isEqualTo(Long.toString(CountDownLatch.MAX_COUNT - 1));

            assertThat(limiter.tryAcquire(Integer.MAX_VALUE).granted()).as("the whole burst of an idle limiter").isTrue();
            var again = limiter.tryAcquire(Integer.MAX_VALUE);
            assertThat(again.granted()).isFalse();
            assertThat(again.retryAfter()).as("the whole burst again once the limiter is idle")
                    .isBetween(RateLimit.MAX_PERIOD.minusMinutes(1), RateLimit.MAX_PERIOD.plusSeconds(1));
            assertThat((Long) redis.server().command("PTTL", Prefixed.derived("huge:rate", "rate")))
                    .as("idle again after the burst's span").isBetween(RateLimit.MAX_PERIOD.toMillis() - 60_000,
                            RateLimit.MAX_PERIOD.toMillis() + 1_000);
        }
    }

    /**
     * Names with spaces, line breaks, quotes, globs, braces and characters beyond ASCII work for the rate limiter,
     * the latch and the fair lock, and land in Redis under exactly the keys their layouts give.
     */
    @Test
    void oddCharactersInNamesWorkAndLandInTheDocumentedKeys() throws Exception {
        List<String> names = List.of("with space", "line\nbreak", "tab\there", "quote'\"", "glob*?[a]", "a{}b",
                "{tag}rest", "trailing:", "%s%n", "é日本🚀", "back\\slash");
        try (Coordis c = TestClients.connect(redis.uri())) {
            for (String odd : names) {
                String name = "odd:" + odd;
                RateLimiter limiter = c.rateLimiter(name, RateLimit.parse("1/1m"));
                assertThat(limiter.tryAcquire().granted()).as(name).isTrue();
                assertThat(limiter.tryAcquire().granted()).as(name + ", spent").isFalse();
                assertThat(redis.server().command("EXISTS", Prefixed.derived(name, "rate"))).as(name).isEqualTo(1L);

                CountDownLatch latch = c.countDownLatch(name, 2, Duration.ofMinutes(1));
                assertThat(latch.countDown()).as(name).isEqualTo(1L);
                assertThat(latch.key()).isEqualTo(Prefixed.derived(name, "latch"));
                assertThat(redis.server().command("GET", latch.key())).as(name).isEqualTo("1");
                assertThat(latch.countDown()).isZero();
                assertThat(latch.await(Duration.ofSeconds(5))).as(name).isTrue();

                try (Lease lease = c.lock(name, FAIR).tryAcquire().orElseThrow()) {
                    assertThat(lease.name()).isEqualTo(name);
                    assertThat(redis.server().command("GET", Prefixed.key(name))).as(name).isEqualTo(lease.token());
                    assertThat(c.lock(name, FAIR).acquire(Duration.ofMillis(200))).as(name + ", held").isEmpty();
                }
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void redisGoneAfterConnectingIsNodeUnavailableWithinTheTimeoutForEveryPrimitive() {
        Duration timeout = Duration.ofMillis(500);
        try (RedisServer server = RedisServer.start();
             Coordis c = TestClients.builder().url(server.uri()).commandTimeout(timeout).connect()) {
            Map<String, Function<String, Object>> ops = operations(c);
            ops.forEach((kind, op) -> op.apply("warm:" + kind)); // scripts loaded, connections open
            server.kill();
            for (Map.Entry<String, Function<String, Object>> op : ops.entrySet()) {
                long start = System.nanoTime();
                Throwable t = catchThrowable(() -> op.getValue().apply("hostile-gone"));
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(t).as(op.getKey() + " with Redis gone").isInstanceOf(NodeUnavailableException.class)
                        .hasMessageContaining(server.address())
                        .hasMessageStartingWith(object(op.getKey(), "hostile-gone") + ": ");
                assertThat(took).as(op.getKey() + ": failed within the timeout + 1 s").isLessThan(timeout.plusSeconds(1));
            }
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void redisLoadingItsDatasetIsNodeUnavailableNamingItAndEveryPrimitiveWorksOnceLoaded() throws Exception {
        Duration timeout = Duration.ofSeconds(2);
        // 100,000 keys of 1 KB, stored uncompressed and loaded 100 µs apart: 15-20 s of loading, during which
        // Redis answers (LOADING) between every 2 MB it reads, on Redis 7 every 64 KB
        RedisServerBuilder builder = RedisServer.builder().enableDebugCommand().arg("--key-load-delay", "100")
                .arg("--rdbcompression", "no").startTimeout(Duration.ofSeconds(90));
        if (io.coordis.redis.runner.RedisBinary.resolve().majorVersion() >= 7) {
            builder.arg("--loading-process-events-interval-bytes", "65536");
        }
        try (RedisServer server = builder.start()) {
            server.command("DEBUG", "POPULATE", "100000", "filler", "1000");
            server.command("SAVE");
            try (Coordis before = TestClients.builder().url(server.uri()).commandTimeout(timeout).connect()) {
                Map<String, Function<String, Object>> ops = operations(before);
                ops.forEach((kind, op) -> op.apply("warm:" + kind));
                CompletableFuture<Void> restarted = CompletableFuture.runAsync(() -> server.restart(Duration.ZERO));
                awaitLoading(server);

                long start = System.nanoTime();
                Throwable connecting = catchThrowable(() -> TestClients.builder().url(server.uri())
                        .commandTimeout(timeout).connect().close());
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                assertThat(isLoading(server)).as("still loading after the connect attempt").isTrue();
                assertThat(connecting).as("connecting while Redis loads").isInstanceOf(NodeUnavailableException.class)
                        .hasMessageContaining(server.address()).hasMessageContaining("loading its dataset");
                assertThat(took).as("connect failed within its timeout + 1 s").isLessThan(timeout.multipliedBy(2)
                        .plusSeconds(1));
                for (Map.Entry<String, Function<String, Object>> op : ops.entrySet()) {
                    start = System.nanoTime();
                    Throwable t = catchThrowable(() -> op.getValue().apply("hostile-loading"));
                    took = Duration.ofNanos(System.nanoTime() - start);
                    assertThat(t).as(op.getKey() + " while Redis loads").isInstanceOf(NodeUnavailableException.class)
                            .hasMessageContaining(server.address())
                            .hasMessageStartingWith(object(op.getKey(), "hostile-loading") + ": ");
                    assertThat(took).as(op.getKey() + ": failed within the timeout + 1 s").isLessThan(timeout.plusSeconds(1));
                }
                assertThat(isLoading(server)).as("still loading after the calls").isTrue();

                // the client connected before reconnects within its longest reconnection pause (1 s) of the
                // load ending, however long the load took; a new one connects at once
                restarted.get(90, TimeUnit.SECONDS);
                long loaded = System.nanoTime();
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).ignoreExceptions()
                        .untilAsserted(() -> ops.forEach((kind, op) -> assertThat(op.apply("back:" + kind))
                                .as(kind + " once loaded").isNotNull()));
                Duration back = Duration.ofNanos(System.nanoTime() - loaded);
                assertThat(back).as("every primitive of the connected client working again after the load")
                        .isLessThan(Duration.ofSeconds(2));
                try (Coordis after = TestClients.builder().url(server.uri()).commandTimeout(timeout).connect()) {
                    for (Coordis c : List.of(before, after)) {
                        operations(c).forEach((kind, op) -> assertThat(op.apply("loaded:" + kind))
                                .as(kind + " once loaded").isNotNull());
                    }
                }
            }
        }
    }

    private static void awaitLoading(RedisServer server) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5)).until(() -> isLoading(server));
    }

    /** True while the server answers LOADING (false when it is down or has loaded). */
    private static boolean isLoading(RedisServer server) {
        try (io.coordis.testkit.RespClient c = io.coordis.testkit.RespClient.connect(server)) {
            c.command("PING");
            return false;
        } catch (io.coordis.testkit.RespException e) {
            return e.getMessage().contains("LOADING");
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Test
    void outOfMemoryIsCommandRejectedForEveryPrimitiveAndWritesNothing() {
        try (RedisServer server = RedisServer.start(); Coordis c = TestClients.connect(server.uri())) {
            Map<String, Function<String, Object>> ops = operations(c);
            ops.forEach((kind, op) -> op.apply("warm:" + kind));
            server.command("FLUSHALL");
            server.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
            server.command("CONFIG", "SET", "maxmemory", "1");
            try {
                for (Map.Entry<String, Function<String, Object>> op : ops.entrySet()) {
                    Throwable t = catchThrowable(() -> op.getValue().apply("hostile-oom"));
                    if (op.getKey().equals("signal")) {
                        // PUBLISH stores nothing, and Redis lets it through when out of memory
                        assertThat(t).as("a signal out of memory").isNull();
                        continue;
                    }
                    assertThat(t).as(op.getKey() + " out of memory").isInstanceOf(CommandRejectedException.class)
                            .hasMessageContaining("OOM").hasMessageContaining(server.address())
                            .hasMessageStartingWith(object(op.getKey(), "hostile-oom") + ": ");
                }
            } finally {
                server.command("CONFIG", "SET", "maxmemory", "0");
            }
            assertThat(server.command("DBSIZE")).as("nothing half-written").isEqualTo(0L);
        }
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void maxclientsReachedIsATypedErrorNamingTheServerWithinTheTimeout() {
        Duration timeout = Duration.ofMillis(500);
        try (RedisServer server = RedisServer.start();
             io.coordis.testkit.RespClient first = io.coordis.testkit.RespClient.connect(server.host(), server.port())) {
            TestClients.builder().url(server.uri()).commandTimeout(timeout).connect().close(); // classes loaded
            server.command("CONFIG", "SET", "maxclients", "1");
            long start = System.nanoTime();
            Throwable t = catchThrowable(() -> TestClients.builder().url(server.uri()).commandTimeout(timeout).connect()
                    .close());
            assertThat(t).as("connecting beyond maxclients").isInstanceOf(CoordisException.class)
                    .hasMessageContaining(server.address()).hasMessageContaining("max number of clients");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(timeout.multipliedBy(2).plusSeconds(1));
            first.command("CONFIG", "SET", "maxclients", "10000");
        }
    }

    @Test
    void aReadOnlyReplicaIsCommandRejectedForEveryPrimitive() {
        try (RedisServer master = RedisServer.start();
             RedisServer replica = RedisServer.builder().replicaOf(master).start();
             Coordis c = TestClients.connect(replica.uri())) {
            for (Map.Entry<String, Function<String, Object>> op : operations(c).entrySet()) {
                Throwable t = catchThrowable(() -> op.getValue().apply("hostile-ro"));
                if (op.getKey().equals("signal")) {
                    // a replica takes PUBLISH (for its own subscribers): nothing to refuse
                    assertThat(t).as("a signal on a replica").isNull();
                    continue;
                }
                assertThat(t).as(op.getKey() + " on a replica").isInstanceOf(CommandRejectedException.class)
                        .hasMessageContaining("READONLY").hasMessageContaining(replica.address())
                        .hasMessageStartingWith(object(op.getKey(), "hostile-ro") + ": ");
            }
        }
    }

    /**
     * Redlock over three nodes, one a read-only replica and one running out of memory: each refusal is that
     * node's vote (ERROR, naming READONLY or OOM), a majority of healthy nodes still grants, and without one the
     * acquire fails with a {@link io.coordis.lock.QuorumUnavailableException} naming both causes, leaving
     * nothing on any node.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void redlockWithAReadOnlyNodeAndAnOutOfMemoryNodeVotesEachRefusalAndLeavesNothing() throws Exception {
        try (RedisServer m0 = RedisServer.start(); RedisServer m1 = RedisServer.start(); RedisServer m2 = RedisServer.start();
             RedisServer replica = RedisServer.builder().replicaOf(m2).start();
             Coordis c = TestClients.connect(List.of(m0.uri(), m1.uri(), replica.uri()))) {
            LockOptions noGuard = LockOptions.defaults().withRestartGuard(false);
            io.coordis.lock.DistributedLock lock = c.lock("hostile:redlock", noGuard);
            try (Lease lease = lock.tryAcquire().orElseThrow()) {
                assertThat(lease.votes().get(2).vote()).as("the replica's vote: %s", lease.votes())
                        .isEqualTo(io.coordis.NodeVote.Vote.ERROR);
                assertThat(lease.votes().get(2).detail()).contains("READONLY");
                assertThat(lease.votes().subList(0, 2)).allSatisfy(v -> assertThat(v.vote())
                        .isIn(io.coordis.NodeVote.Vote.ACQUIRED, io.coordis.NodeVote.Vote.NOT_AWAITED));
            }
            m1.command("FLUSHALL");
            m1.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
            m1.command("CONFIG", "SET", "maxmemory", "1");
            try {
                Throwable t = catchThrowable(lock::tryAcquire);
                assertThat(t).as("two of three nodes refusing").isInstanceOf(io.coordis.lock.QuorumUnavailableException.class)
                        .hasMessageStartingWith("cannot lock '" + Prefixed.key("hostile:redlock") + "': ")
                        .hasMessageContaining("OOM").hasMessageContaining("READONLY")
                        .hasMessageContaining(m1.address()).hasMessageContaining(replica.address());
                await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
                    for (RedisServer s : List.of(m0, m1, m2)) {
                        assertThat(s.command("EXISTS", Prefixed.key("hostile:redlock"))).as("left on " + s.address())
                                .isEqualTo(0L);
                    }
                });
            } finally {
                m1.command("CONFIG", "SET", "maxmemory", "0");
            }
            assertThat(lock.tryAcquire()).as("the majority back").isPresent().get().satisfies(Lease::close);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aThousandScriptFlushesAreEachRecoveredTransparently() {
        try (Coordis c = TestClients.connect(redis.uri())) {
            Map<String, Function<String, Object>> ops = operations(c);
            List<String> names = new ArrayList<>(ops.keySet());
            for (int i = 0; i < 1000; i++) {
                redis.server().command("SCRIPT", "FLUSH");
                String kind = names.get(i % names.size());
                Object result = ops.get(kind).apply("flush:" + i);
                assertThat(result).as(kind + " after SCRIPT FLUSH #" + i).isNotNull();
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void interruptsEndBlockingCallsPromptlyAndLeaveNothingBehind() throws Exception {
        try (Coordis c = TestClients.connect(redis.uri()); Coordis other = TestClients.connect(redis.uri())) {
            Lease held = other.lock("intr:lock").tryAcquire().orElseThrow();
            var incumbent = other.election("intr:election");
            var leader = incumbent.campaign(Duration.ofSeconds(2)).orElseThrow();
            Map<String, Blocking> calls = new LinkedHashMap<>();
            calls.put("lock acquire", () -> c.lock("intr:lock").acquire(Duration.ofSeconds(30)));
            calls.put("election campaign", () -> c.election("intr:election").campaign(Duration.ofSeconds(30)));
            calls.put("queue pop", () -> c.queue("intr:q").pop(Duration.ofSeconds(30)));
            calls.put("reliable take", () -> {
                try (Consumer consumer = c.reliableQueue("intr:rq").consumer()) {
                    return consumer.take(Duration.ofSeconds(30));
                }
            });
            calls.put("signal await", () -> c.signals().await("intr:signal", Duration.ofSeconds(30)));
            Lease fairHeld = other.lock("intr:fair", FAIR).tryAcquire().orElseThrow();
            calls.put("fair lock acquire", () -> c.lock("intr:fair", FAIR).acquire(Duration.ofSeconds(30)));
            CountDownLatch latch = c.countDownLatch("intr:latch", 1, Duration.ofMinutes(1));
            calls.put("latch await", () -> latch.await(Duration.ofSeconds(30)));
            RateLimiter slow = c.rateLimiter("intr:rate", RateLimit.parse("1/10s"));
            assertThat(slow.tryAcquire().granted()).isTrue();
            calls.put("rate limiter wait for a reserved permit", () -> slow.acquire(Duration.ofSeconds(30)));
            for (Map.Entry<String, Blocking> call : calls.entrySet()) {
                assertInterruptedPromptly(call.getKey(), call.getValue());
            }
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(redis.server().command("ZCARD", Prefixed.derived("intr:fair", "line")))
                        .as("the interrupted fair waiter left the line").isEqualTo(0L);
                assertThat(redis.server().command("PUBSUB", "NUMSUB", latch.key()))
                        .as("the interrupted latch wait unsubscribed").isEqualTo(List.of(latch.key(), 0L));
            });
            assertThat(fairHeld.isHeld()).isTrue();
            assertThat(redis.server().command("GET", Prefixed.key("intr:fair"))).isEqualTo(fairHeld.token());
            fairHeld.close();
            assertThat(held.isHeld()).isTrue();
            assertThat(redis.server().command("GET", Prefixed.key("intr:lock"))).isEqualTo(held.token());
            assertThat(redis.server().command("GET", Prefixed.key("intr:election"))).as("the leader is untouched")
                    .isEqualTo(incumbent.candidateId());
            assertThat(leader.term()).isPositive();
            held.close();
        }
    }

    /** {@code total_commands_processed}: it counts each command once it ran, so an INFO counts in the next one. */
    private static long commandsProcessed() {
        return Long.parseLong(redis.server().info("stats").get("total_commands_processed"));
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void interruptsEndLegacyLockEventAndCounterElectionCallsPromptlyAndLeaveNothingBeyondItsTtl() throws Exception {
        try (Coordis c = TestClients.connect(redis.uri()); Coordis other = TestClients.connect(redis.uri())) {
            Lease legacy = other.legacyLock("intr:legacy", LockOptions.defaults()).tryAcquire().orElseThrow();
            Object legacyValue = redis.server().command("GET", Prefixed.key("intr:legacy"));
            assertInterruptedPromptly("legacy lock acquire",
                    () -> c.legacyLock("intr:legacy", LockOptions.defaults()).acquire(Duration.ofSeconds(30)));
            assertThat(redis.server().command("GET", Prefixed.key("intr:legacy")))
                    .as("the holder's legacy lock is untouched").isEqualTo(legacyValue);
            assertThat(legacy.isHeld()).isTrue();
            legacy.close();

            var event = c.signals().event("intr:event", Duration.ofSeconds(5));
            assertInterruptedPromptly("latched event await", () -> event.await(Duration.ofSeconds(30)));
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(redis.server()
                    .command("PUBSUB", "NUMSUB", Prefixed.key("intr:event"))).as("nothing stays subscribed")
                    .isEqualTo(List.of(Prefixed.key("intr:event"), 0L)));
            assertThat(redis.server().command("EXISTS", Prefixed.derived("intr:event", "event"))).isEqualTo(0L);
        }
        // a round is one round trip: it blocks while Redis does not answer (here a proxy holds the request back)
        try (io.coordis.testkit.FaultProxy proxy = io.coordis.testkit.FaultProxy.to(redis.server());
             Coordis slow = TestClients.builder().url(proxy.uri()).commandTimeout(Duration.ofSeconds(30)).connect()) {
            io.coordis.election.CounterElection counter = slow.counterElection("intr:counter", Duration.ofSeconds(20));
            proxy.blackhole();
            assertInterruptedPromptly("counter election round", counter::round);
            assertThat(counter.isLeader()).as("an interrupted round does not count").isFalse();
            proxy.pass(); // the held request reaches Redis now: a round that won leaves the key with its term
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(redis.server()
                    .command("EXISTS", Prefixed.key("intr:counter"))).isEqualTo(1L));
            assertThat((Long) redis.server().command("TTL", Prefixed.key("intr:counter"))).as("expires within its term")
                    .isBetween(1L, 20L);
        }
    }

    /**
     * The first waiter of a client opens its pub/sub connection; an interrupt while that takes long (a slow
     * network here) ends the call with InterruptedException, not a connection error, and the connection that
     * opens after the caller left is closed rather than kept unused.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void anInterruptWhileThePubSubConnectionOpensEndsTheCallAndTheLateConnectionServesTheNextWaiter() throws Exception {
        try (io.coordis.testkit.FaultProxy proxy = io.coordis.testkit.FaultProxy.to(redis.server());
             Coordis c = TestClients.builder().url(proxy.uri()).commandTimeout(Duration.ofSeconds(20)).connect()) {
            int commandConnections = proxy.connectionCount();
            proxy.latency(Duration.ofMillis(700));
            assertInterruptedPromptly("first waiter, opening the pub/sub connection",
                    () -> c.signals().await("intr:first", Duration.ofSeconds(30)));
            assertThat(proxy.acceptedCount()).as("a pub/sub connection was being opened").isGreaterThan(commandConnections);
            // the opening goes on without the caller, and the connection is kept for the client's next subscription
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(proxy.connectionCount())
                    .as("connections once the late one opened").isEqualTo(commandConnections + 1));
            proxy.pass();
            try (Waiter w = c.signals().waiter("intr:first")) {
                assertThat(c.signals().signal("intr:first", "after")).as("the next waiter uses it and works")
                        .isEqualTo(1L);
                assertThat(w.await(Duration.ofSeconds(5))).isPresent();
            }
            assertThat(proxy.connectionCount()).as("no second pub/sub connection").isEqualTo(commandConnections + 1);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void interruptsEndRedlockAcquirePromptlyWhetherWaitingForTheHolderOrForVotesAndLeaveNothingHeld() throws Exception {
        LockOptions options = LockOptions.defaults().withRestartGuard(false).withTtl(Duration.ofSeconds(30));
        try (io.coordis.testkit.RedisGroup masters = io.coordis.testkit.RedisGroup.masters(3);
             Coordis holder = TestClients.connect(masters.uris()); Coordis c = TestClients.connect(masters.uris())) {
            Lease held = holder.lock("intr:redlock", options).tryAcquire().orElseThrow();
            assertInterruptedPromptly("Redlock acquire of a held lock",
                    () -> c.lock("intr:redlock", options).acquire(Duration.ofSeconds(30)));
            for (RedisServer master : masters.servers()) {
                assertThat(master.command("GET", Prefixed.key("intr:redlock")))
                        .as("the holder's lock on " + master.address()).isEqualTo(held.token());
            }
            held.close();

            // votes that take long: the interrupt comes while the acquire requests travel; they arrive later and
            // are released right behind them, long before the 30 s TTL could have cleaned up
            List<io.coordis.testkit.FaultProxy> proxies = new ArrayList<>();
            try {
                for (RedisServer master : masters.servers()) {
                    proxies.add(io.coordis.testkit.FaultProxy.to(master));
                }
                try (Coordis slow = TestClients.builder().urls(proxies.stream().map(io.coordis.testkit.FaultProxy::uri)
                        .toList()).commandTimeout(Duration.ofSeconds(10)).connect()) {
                    LockOptions patient = options.withNodeTimeout(Duration.ofSeconds(10));
                    slow.lock("intr:warm", patient).tryAcquire().orElseThrow().close(); // connections open, scripts loaded
                    proxies.forEach(p -> p.latency(Duration.ofMillis(800)));
                    assertInterruptedPromptly("Redlock acquire waiting for votes",
                            () -> slow.lock("intr:slow", patient).acquire(Duration.ofSeconds(30)));
                    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
                        assertThat(masters.servers().stream().mapToLong(m -> (Long) m.command("EXISTS",
                                Prefixed.derived("intr:slow", "fence"))).sum())
                                .as("fencing counters: the requests reached the nodes").isEqualTo(3L);
                        for (RedisServer master : masters.servers()) {
                            assertThat(master.command("EXISTS", Prefixed.key("intr:slow")))
                                    .as("left on " + master.address()).isEqualTo(0L);
                        }
                    });
                }
            } finally {
                proxies.forEach(io.coordis.testkit.FaultProxy::close);
            }
        }
    }

    /**
     * Runs {@code call} on a thread of its own, interrupts it after 300 ms and checks that it ends within 1 s
     * with an InterruptedException, the thread's flag cleared (the exception reports the interrupt).
     */
    private static void assertInterruptedPromptly(String what, Blocking call) throws Exception {
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                call.run();
            } catch (Throwable e) {
                outcome.set(e);
            } finally {
                flagAfter.set(Thread.currentThread().isInterrupted());
                done.complete(null);
            }
        }, "interrupted " + what);
        t.start();
        Thread.sleep(300);
        assertThat(done).as(what + " blocks until interrupted (outcome so far: %s)", outcome.get()).isNotDone();
        long start = System.nanoTime();
        t.interrupt();
        done.get(5, TimeUnit.SECONDS);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as(what + " ended after the interrupt")
                .isLessThan(Duration.ofSeconds(1));
        assertThat(outcome.get()).as(what + " interrupted").isInstanceOf(InterruptedException.class);
        assertThat(flagAfter.get()).as(what + ": the interrupt is reported by the exception, the flag cleared").isFalse();
    }

    private interface Blocking {
        Object run() throws Exception;
    }

    private interface Call {
        Object call() throws Exception;
    }

    private static Object call(Call c) {
        try {
            return c.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The keys under the run's prefix and those derived from them, each once. */
    private static java.util.Set<String> testKeys() {
        java.util.Set<String> keys = new java.util.TreeSet<>();
        for (String pattern : List.of(Prefixed.key("*"), "{" + Prefixed.key("*"))) {
            for (Object k : (List<?>) redis.server().command("KEYS", pattern)) {
                keys.add((String) k);
            }
        }
        return keys;
    }

    /** Type and content of each key (a heartbeat's value is renewed, so only its type counts). */
    private static Map<String, Object> dump(List<String> keys) {
        Map<String, Object> m = new LinkedHashMap<>();
        RedisServer s = redis.server();
        for (String k : keys) {
            String type = String.valueOf(s.command("TYPE", k));
            Object content = switch (type) {
                case "string" -> k.contains(":hb:") ? "" : s.command("GET", k);
                case "hash" -> s.command("HGETALL", k);
                case "list" -> s.command("LRANGE", k, "0", "-1");
                case "zset" -> s.command("ZRANGE", k, "0", "-1", "WITHSCORES");
                default -> "";
            };
            m.put(k, type + " " + content);
        }
        return m;
    }
}
