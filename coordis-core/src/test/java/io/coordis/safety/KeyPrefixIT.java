package io.coordis.safety;

import io.coordis.AccessDeniedException;
import io.coordis.Coordis;
import io.coordis.RequiredCommands;
import io.coordis.election.CounterElection;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.Queue;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Event;
import io.coordis.signal.Gathering;
import io.coordis.signal.Signal;
import io.coordis.signal.Subscription;
import io.coordis.signal.Waiter;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A client-wide key prefix ({@code Coordis.Builder.keyPrefix}): every primitive works for an ACL user limited to
 * the prefix ({@link RequiredCommands#keyPatterns}) with exactly the commands Coordis needs, writes no key
 * outside it, hands names back as given, and meets programs in other languages on the prefixed names; two
 * clients with different prefixes and the same names do not touch each other.
 */
class KeyPrefixIT {
    private static final String PASSWORD = "prefix-Secret-3";
    private static final Duration WAIT = Duration.ofSeconds(5);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @RegisterExtension
    final TenantUsers tenants = new TenantUsers(redis, PASSWORD, "billing", "search");

    private <T extends AutoCloseable> T keep(T resource) {
        return tenants.keep(resource);
    }

    /** A client logged in as the tenant's user with the tenant's prefix. */
    private Coordis tenant(String tenant) {
        return keep(Coordis.builder().url("redis://" + tenant + ":" + PASSWORD + "@" + redis.server().address())
                .keyPrefix(tenant + ":").connect());
    }

    private static List<String> allKeys() {
        try (RespClient admin = redis.server().client()) {
            List<String> keys = new ArrayList<>();
            for (Object k : (List<?>) admin.command("KEYS", "*")) {
                keys.add((String) k);
            }
            return keys;
        }
    }

    @Test
    void locksTakeThePrefixedKeyAndWakeWaitersThroughThePrefixedChannel() throws Exception {
        Coordis billing = tenant("billing");
        Coordis other = keep(Coordis.builder().url("redis://billing:" + PASSWORD + "@" + redis.server().address())
                .keyPrefix("billing:").connect());
        DistributedLock lock = billing.lock("orders:42", LockOptions.defaults().withTtl(Duration.ofSeconds(30)));
        assertThat(lock.name()).isEqualTo("orders:42");
        assertThat(lock.key()).isEqualTo("billing:orders:42");

        Lease first = lock.tryAcquire().orElseThrow();
        assertThat(first.name()).isEqualTo("orders:42");
        assertThat(redis.server().command("GET", "billing:orders:42")).isEqualTo(first.token());
        assertThat(redis.server().command("GET", "{billing:orders:42}:fence")).isEqualTo(
                Long.toString(first.fencingToken()));

        // a waiter of another client is woken by the release (the released channel is under the prefix too)
        CompletableFuture<Optional<Lease>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return other.lock("orders:42").acquire(Duration.ofSeconds(20));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        awaitSubscribers("{billing:orders:42}:released", 1);
        long releasedAt = System.nanoTime();
        assertThat(first.release()).isTrue();
        Lease second = waiting.get(10, TimeUnit.SECONDS).orElseThrow();
        assertThat(Duration.ofNanos(System.nanoTime() - releasedAt)).isLessThan(Duration.ofSeconds(5));
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

        // an option's own prefix comes after the client's
        DistributedLock nested = billing.lock("x", LockOptions.defaults().withKeyPrefix("locks:"));
        assertThat(nested.key()).isEqualTo("billing:locks:x");
        nested.tryAcquire().orElseThrow().release();
        second.release();
        assertThat(allKeys()).allMatch(k -> k.startsWith("billing:") || k.startsWith("{billing:"));
    }

    @Test
    void aProgramInAnotherLanguageLockingThePrefixedNameExcludesUsAndWeExcludeIt() throws Exception {
        Coordis billing = tenant("billing");
        assertThat(redis.server().command("SET", "billing:report", "python-token", "NX", "PX", "30000"))
                .isEqualTo("OK");
        assertThat(billing.lock("report").tryAcquire()).isEmpty();
        redis.server().command("DEL", "billing:report");
        Lease ours = billing.lock("report").tryAcquire().orElseThrow();
        assertThat(redis.server().command("SET", "billing:report", "python-token", "NX", "PX", "30000")).isNull();
        ours.release();
        // the unprefixed name is someone else's key: untouched
        redis.server().command("SET", "report", "unrelated");
        assertThat(billing.lock("report").tryAcquire()).isPresent();
        assertThat(redis.server().command("GET", "report")).isEqualTo("unrelated");
    }

    @Test
    void electionsAndCounterElectionsLiveUnderThePrefix() throws Exception {
        Coordis billing = tenant("billing");
        LeaderElection election = keep(billing.election("scheduler"));
        assertThat(election.name()).isEqualTo("scheduler");
        Leadership leadership = election.campaign(WAIT).orElseThrow();
        assertThat(leadership.name()).isEqualTo("scheduler");
        assertThat(leadership.term()).isPositive();
        assertThat(redis.server().command("EXISTS", "billing:scheduler")).isEqualTo(1L);
        assertThat(redis.server().command("GET", "{billing:scheduler}:term"))
                .isEqualTo(Long.toString(leadership.term()));

        LeaderElection rival = keep(tenant("billing").election("scheduler"));
        assertThat(rival.campaign(Duration.ofMillis(300))).isEmpty();
        assertThat(leadership.resign()).isTrue();
        assertThat(rival.campaign(WAIT).orElseThrow().term()).isGreaterThan(leadership.term());

        CounterElection counter = billing.counterElection("master_selector", Duration.ofSeconds(20));
        assertThat(counter.key()).isEqualTo("billing:master_selector");
        assertThat(counter.round()).isTrue();
        assertThat(redis.server().command("GET", "billing:master_selector")).isEqualTo("1");
        assertThat(allKeys()).allMatch(k -> k.startsWith("billing:") || k.startsWith("{billing:"));
    }

    @Test
    void queuesUseThePrefixedListsAndAProducerInAnotherLanguageFeedsThem() throws Exception {
        Coordis billing = tenant("billing");
        Queue plain = billing.queue("invoices");
        assertThat(plain.name()).isEqualTo("invoices");
        plain.push("first");
        redis.server().command("LPUSH", "billing:invoices", "from-node");
        assertThat(redis.server().command("LLEN", "billing:invoices")).isEqualTo(2L);
        assertThat(plain.depth()).isEqualTo(2);
        assertThat(plain.moveTo("invoices:processing", WAIT).map(b -> new String(b, StandardCharsets.UTF_8)))
                .contains("first");
        assertThat(redis.server().command("LRANGE", "billing:invoices:processing", "0", "-1"))
                .isEqualTo(List.of("first"));
        assertThat(plain.remove("invoices:processing", "first".getBytes(StandardCharsets.UTF_8))).isTrue();
        assertThat(plain.pop(WAIT).map(b -> new String(b, StandardCharsets.UTF_8))).contains("from-node");

        ReliableQueue jobs = billing.reliableQueue("jobs");
        assertThat(jobs.name()).isEqualTo("jobs");
        jobs.push("a");
        jobs.push("b");
        try (Consumer consumer = jobs.consumer()) {
            Delivery a = consumer.take(WAIT).orElseThrow();
            assertThat(a.text()).isEqualTo("a");
            assertThat(a.ack()).isEqualTo(Outcome.ACKED);
            Delivery b = consumer.take(WAIT).orElseThrow();
            assertThat(b.nack()).isEqualTo(Outcome.REQUEUED);
            Delivery again = consumer.take(WAIT).orElseThrow();
            assertThat(again.text()).isEqualTo("b");
            assertThat(again.attempts()).isEqualTo(2);
            assertThat(again.ack()).isEqualTo(Outcome.ACKED);
        }
        assertThat(jobs.stats().depth()).isZero();
        assertThat(jobs.sweep()).isZero();
        jobs.push("left for later");
        assertThat(allKeys()).isNotEmpty().allMatch(k -> k.startsWith("billing:") || k.startsWith("{billing:"));
    }

    @Test
    void signalsPublishOnPrefixedChannelsAndHandBackTheNamesAsGiven() throws Exception {
        Coordis billing = tenant("billing");
        try (Waiter waiter = billing.signals().waiter("done")) {
            assertThat(redis.server().command("PUBLISH", "done", "not ours")).isEqualTo(0L);
            assertThat(redis.server().command("PUBLISH", "billing:done", "from-go")).isEqualTo(1L);
            Signal got = waiter.await(WAIT).orElseThrow();
            assertThat(got.channel()).isEqualTo("done");
            assertThat(got.data()).isEqualTo("from-go");
        }

        {
            // the Redis view: our signal goes out on the prefixed channel
            CompletableFuture<Optional<Signal>> ours = CompletableFuture.supplyAsync(() -> {
                try {
                    return billing.signals().await("ready", Duration.ofSeconds(10));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitSubscribers("billing:ready", 1);
            assertThat(billing.signals().signal("ready", "go")).isEqualTo(1);
            assertThat(ours.get(10, TimeUnit.SECONDS)).contains(new Signal("ready", "go"));
        }

        // Redis checks a PSUBSCRIBE pattern literally against the user's channel rules: "*" is "billing:*"
        try (Waiter pattern = billing.signals().waiterForPattern("*")) {
            assertThat(billing.signals().signal("jobs.7", "seven")).isEqualTo(1);
            assertThat(pattern.await(WAIT)).contains(new Signal("jobs.7", "seven"));
        }
        assertThatThrownBy(() -> billing.signals().waiterForPattern("jobs.*")).isInstanceOf(AccessDeniedException.class)
                .hasMessageContaining("pattern 'jobs.*'");

        try (Waiter unicast = billing.signals().unicastWaiter("worker:")) {
            assertThat(billing.signals().signalOne("worker:", "task")).isEqualTo(1);
            Signal one = unicast.await(WAIT).orElseThrow();
            assertThat(one.data()).isEqualTo("task");
            assertThat(one.channel()).startsWith("worker:").doesNotStartWith("billing:");
            assertThat(unicast.channels()).allMatch(c -> c.startsWith("worker:"));
        }

        try (Gathering all = billing.signals().gathering(List.of("x", "y"))) {
            billing.signals().signal("x", "1");
            billing.signals().signal("y", "2");
            Map<String, Signal> got = all.await(WAIT).orElseThrow();
            assertThat(got).containsOnlyKeys("x", "y");
            assertThat(got.get("y")).isEqualTo(new Signal("y", "2"));
        }

        List<Signal> heard = new CopyOnWriteArrayList<>();
        try (Subscription s = billing.signals().listen(List.of("tick"), heard::add)) {
            billing.signals().signal("tick", "t1");
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (heard.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
        }
        assertThat(heard).containsExactly(new Signal("tick", "t1"));

        Event event = billing.signals().event("deployed", Duration.ofMinutes(1));
        assertThat(event.name()).isEqualTo("deployed");
        assertThat(event.key()).isEqualTo("{billing:deployed}:event");
        event.signal("v42");
        assertThat(redis.server().command("GET", "{billing:deployed}:event")).isEqualTo("v42");
        assertThat(event.await(WAIT)).contains(new Signal("deployed", "v42"));
        assertThat(event.peek()).contains("v42");
        assertThat(allKeys()).isNotEmpty().allMatch(k -> k.startsWith("billing:") || k.startsWith("{billing:"));
    }

    @Test
    void twoPrefixesWithTheSameNamesDoNotMeet() throws Exception {
        Coordis billing = tenant("billing");
        Coordis search = tenant("search");
        Lease a = billing.lock("shared").tryAcquire().orElseThrow();
        Lease b = search.lock("shared").tryAcquire().orElseThrow();
        // each from its own counter, under its own prefix
        assertThat(redis.server().command("GET", "{billing:shared}:fence")).isEqualTo(Long.toString(a.fencingToken()));
        assertThat(redis.server().command("GET", "{search:shared}:fence")).isEqualTo(Long.toString(b.fencingToken()));
        billing.reliableQueue("q").push("for billing");
        try (Consumer c = search.reliableQueue("q").consumer()) {
            assertThat(c.take(Duration.ofMillis(200))).isEmpty();
        }
        try (Waiter w = search.signals().waiter("s")) {
            assertThat(billing.signals().signal("s", "x")).isZero();
            assertThat(w.poll()).isEmpty();
        }
        a.release();
        b.release();
        // without its prefix a tenant's client may not touch the other's names
        Coordis unprefixed = keep(Coordis.connect("redis://search:" + PASSWORD + "@" + redis.server().address()));
        assertThatThrownBy(() -> unprefixed.lock("billing:shared").tryAcquire())
                .isInstanceOf(AccessDeniedException.class);
    }

    @Test
    void badPrefixesAreRefusedBeforeConnecting() {
        Coordis.Builder builder = Coordis.builder();
        assertThatThrownBy(() -> builder.keyPrefix(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("key prefix");
        for (String bad : List.of("{t}:", "app*", "a?", "a[b]", "a\\b", "a b", "a\nb")) {
            assertThatThrownBy(() -> builder.keyPrefix(bad)).as(bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("key prefix").hasMessageContaining("billing:");
        }
        assertThatThrownBy(() -> builder.keyPrefix("p".repeat(257))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("257 bytes");
        assertThat(builder.keyPrefix("")).isSameAs(builder);
        // names keep their own checks: a blank name is refused although the prefixed key would not be blank
        try (Coordis billing = Coordis.builder().url(redis.server().uri()).keyPrefix("billing:").connect()) {
            assertThat(billing.keyPrefix()).isEqualTo("billing:");
            assertThatThrownBy(() -> billing.lock(" ")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("lock name must not be blank");
            assertThatThrownBy(() -> billing.queue("")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> billing.signals().signal("", "x")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> billing.lock("{orders}:fence")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("choose another name");
        }
    }

    private static void awaitSubscribers(String channel, long count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            List<?> reply = (List<?>) redis.server().command("PUBSUB", "NUMSUB", channel);
            if ((Long) reply.get(1) >= count) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no " + count + " subscriber(s) on " + channel + " within 10 s");
    }
}
