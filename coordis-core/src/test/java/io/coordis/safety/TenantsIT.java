package io.coordis.safety;

import io.coordis.AccessDeniedException;
import io.coordis.Coordis;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.inspect.ElectionState;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.LockState;
import io.coordis.inspect.QueueState;
import io.coordis.inspect.SignalState;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.ratelimit.RateLimit;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Event;
import io.coordis.signal.Waiter;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Two tenants on one Redis, each an ACL user limited to its own prefix ({@code acme:} and {@code beta:})
 * with exactly the commands Coordis needs: each runs every primitive on its own names; every attempt on the
 * other's objects — take, force-unlock, campaign, push, take, ack, sweep, signal, wait, latch, inspect, a permit
 * of its rate limiter, its count-down latch, its fair lock and line — is refused with {@link AccessDeniedException}
 * and leaves the other's keys byte for byte as they were (a fair line's lapse times move on as its waiter renews
 * its place: its places are compared); a tenant's listings show its own objects only.
 */
class TenantsIT {
    private static final String PASSWORD = "tenant-Secret-7";
    private static final LockOptions FAIR = LockOptions.defaults().withFair(true).withTtl(Duration.ofSeconds(30));
    private static final RateLimit RATE = RateLimit.parse("5/1h");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @RegisterExtension
    final TenantUsers tenants = new TenantUsers(redis, PASSWORD, "acme", "beta");

    private <T extends AutoCloseable> T keep(T resource) {
        return tenants.keep(resource);
    }

    private Coordis connect(String tenant) {
        return keep(Coordis.connect("redis://" + tenant + ":" + PASSWORD + "@" + redis.server().address()));
    }

    /** What one tenant set up: a held lock, a leader, a queue with one message in flight, a waiter, an event. */
    private record Objects(Lease lease, Leadership leadership, Delivery inFlight, Waiter waiter) {
    }

    /** A held fair lock and a waiter of another client in its line. */
    private record FairLine(Lease holder, CompletableFuture<Optional<Lease>> inLine) {
    }

    private Objects setUp(Coordis c, String t) throws Exception {
        Lease lease = c.lock(t + ":lock", LockOptions.defaults().withTtl(Duration.ofSeconds(30))).tryAcquire()
                .orElseThrow();
        LeaderElection election = keep(c.election(t + ":elect"));
        Leadership leadership = election.campaign(Duration.ofSeconds(10)).orElseThrow();
        ReliableQueue q = c.reliableQueue(t + ":q");
        q.push(t + "-first");
        q.push(t + "-second");
        Consumer consumer = keep(q.consumer());
        Delivery inFlight = consumer.take(Duration.ofSeconds(5)).orElseThrow();
        c.queue(t + ":plain").push(t + "-plain");
        c.signals().event(t + ":ev", Duration.ofMinutes(5)).signal(t + "-ready");
        Waiter waiter = keep(c.signals().waiter(t + ":sig"));
        keep(c.signals().unicastWaiter(t + ":uni"));
        return new Objects(lease, leadership, inFlight, waiter);
    }

    /** A rate limiter with a permit taken, a latch counted down once, a fair lock held with a waiter in its line. */
    private FairLine setUpLimiterLatchAndLine(Coordis c, String t) throws Exception {
        assertThat(c.rateLimiter(t + ":rate", RATE).tryAcquire().granted()).isTrue();
        assertThat(c.countDownLatch(t + ":latch", 3, Duration.ofMinutes(5)).countDown()).isEqualTo(2L);
        Lease fair = c.lock(t + ":fair", FAIR).tryAcquire().orElseThrow();
        CompletableFuture<Optional<Lease>> inLine = connect(t).lock(t + ":fair", FAIR)
                .acquireAsync(Duration.ofMinutes(1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((Long) redis.server().command("ZCARD", "{" + t + ":fair}:line") == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return new FairLine(fair, inLine);
    }

    /**
     * Every key with the tenant's prefix or derived from one of its names, with its DUMP (value, not TTL); a fair
     * line's lapse times, which its waiters renew, with their places only.
     */
    private static Map<String, String> snapshot(String t) {
        Map<String, String> keys = new TreeMap<>();
        try (RespClient admin = redis.server().client()) {
            for (String pattern : List.of(t + ":*", "{" + t + ":*")) {
                for (Object key : (List<?>) admin.command("KEYS", pattern)) {
                    if (((String) key).endsWith(":line-until")) {
                        keys.put((String) key, "places " + admin.command("ZRANGE", (String) key, "0", "-1"));
                        continue;
                    }
                    Object dump = admin.commandBinary("DUMP".getBytes(StandardCharsets.UTF_8),
                            ((String) key).getBytes(StandardCharsets.UTF_8));
                    keys.put((String) key, dump == null ? "gone" : Base64.getEncoder().encodeToString((byte[]) dump));
                }
            }
        }
        return keys;
    }

    @Test
    void aTenantCannotTouchTheOthersObjectsAndNothingOfTheirsChanges() throws Exception {
        Coordis acme = connect("acme");
        Coordis beta = connect("beta");
        Objects mine = setUp(acme, "acme");
        Objects theirs = setUp(beta, "beta");
        FairLine myLine = setUpLimiterLatchAndLine(acme, "acme");
        FairLine theirLine = setUpLimiterLatchAndLine(beta, "beta");
        Map<String, String> before = snapshot("beta");
        assertThat(before).containsKeys("beta:lock", "beta:elect", "beta:q", "beta:plain", "{beta:ev}:event",
                "{beta:lock}:fence", "{beta:rate}:rate", "{beta:latch}:latch", "beta:fair", "{beta:fair}:line",
                "{beta:fair}:line-until");
        String theirDelivery = theirs.inFlight().id();

        Map<String, ThrowingCallable> attempts = new LinkedHashMap<>();
        attempts.put("take the lock", () -> acme.lock("beta:lock").tryAcquire());
        attempts.put("wait for the lock", () -> acme.lock("beta:lock").acquire(Duration.ofMillis(300)));
        attempts.put("force-unlock", () -> acme.lock("beta:lock").forceUnlock("takeover"));
        attempts.put("read the holder", () -> acme.lock("beta:lock").holder());
        attempts.put("campaign", () -> acme.election("beta:elect").campaign(Duration.ofMillis(300)));
        attempts.put("read the leader", () -> acme.election("beta:elect").leader());
        attempts.put("push", () -> acme.reliableQueue("beta:q").push("forged"));
        attempts.put("consume", () -> acme.reliableQueue("beta:q").consumer());
        attempts.put("ack their delivery", () -> acme.reliableQueue("beta:q").ack(theirDelivery));
        attempts.put("nack their delivery", () -> acme.reliableQueue("beta:q").nack(theirDelivery, Duration.ZERO));
        attempts.put("sweep", () -> acme.reliableQueue("beta:q").sweep());
        attempts.put("requeue dead letters", () -> acme.reliableQueue("beta:q").requeueDead(10));
        attempts.put("read queue stats", () -> acme.reliableQueue("beta:q").stats());
        attempts.put("pop the plain queue", () -> acme.queue("beta:plain").pop());
        attempts.put("push to the plain queue", () -> acme.queue("beta:plain").push("forged"));
        attempts.put("signal", () -> acme.signals().signal("beta:sig", "forged"));
        attempts.put("signal one", () -> acme.signals().signalOne("beta:uni", "forged"));
        if (Integer.parseInt(redis.server().info("server").get("redis_version").split("\\.")[0]) >= 7) {
            // where the script can check the user's channel permission first, even "nobody waits" is refused
            attempts.put("signal one where nobody waits", () -> acme.signals().signalOne("beta:sig", "forged"));
        }
        attempts.put("wait for a signal", () -> acme.signals().waiter("beta:sig").close());
        attempts.put("latch an event", () -> acme.signals().event("beta:ev", Duration.ofMinutes(1)).signal("forged"));
        attempts.put("read an event", () -> acme.signals().event("beta:ev", Duration.ofMinutes(1)).peek());
        attempts.put("clear an event", () -> acme.signals().event("beta:ev", Duration.ofMinutes(1)).clear());
        attempts.put("inspect the lock", () -> acme.inspector().lock("beta:lock"));
        attempts.put("inspect the election", () -> acme.inspector().election("beta:elect"));
        attempts.put("inspect the queue", () -> acme.inspector().queue("beta:q"));
        attempts.put("inspect the event", () -> acme.inspector().signal("beta:ev"));
        attempts.put("take a permit of their rate limiter", () -> acme.rateLimiter("beta:rate", RATE).tryAcquire());
        attempts.put("wait for a permit of their rate limiter", () -> acme.rateLimiter("beta:rate", RATE)
                .acquire(Duration.ofMillis(300)));
        attempts.put("count their latch down", () -> acme.countDownLatch("beta:latch", 3, Duration.ofMinutes(5))
                .countDown());
        attempts.put("read their latch", () -> acme.countDownLatch("beta:latch", 3, Duration.ofMinutes(5)).getCount());
        attempts.put("wait for their latch", () -> acme.countDownLatch("beta:latch", 3, Duration.ofMinutes(5))
                .await(Duration.ofMillis(300)));
        attempts.put("take their fair lock", () -> acme.lock("beta:fair", FAIR).tryAcquire());
        attempts.put("wait in their fair line", () -> acme.lock("beta:fair", FAIR).acquire(Duration.ofMillis(300)));

        List<String> notDenied = new ArrayList<>();
        attempts.forEach((what, attempt) -> {
            long start = System.nanoTime();
            Throwable t = catchThrowable(attempt);
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (!(t instanceof AccessDeniedException) || ms > 2000) {
                notDenied.add(what + " -> " + (t == null ? "allowed" : t) + " in " + ms + " ms");
            } else {
                assertThat(t.getMessage()).as(what).doesNotContain(PASSWORD);
            }
        });
        assertThat(notDenied).as("attempts on the other tenant's objects that were not refused at once").isEmpty();
        assertThat(snapshot("beta")).as("the other tenant's keys, byte for byte").isEqualTo(before);

        // the other tenant's objects still work for it
        assertThat(theirs.lease().isHeld()).isTrue();
        assertThat(theirs.leadership().isHeld()).isTrue();
        assertThat(theirs.waiter().await(Duration.ofMillis(300))).as("no forged signal arrived").isEmpty();
        assertThat(theirs.inFlight().ack()).isEqualTo(Outcome.ACKED);
        assertThat(beta.reliableQueue("beta:q").stats().depth()).isEqualTo(1);
        assertThat(beta.signals().event("beta:ev", Duration.ofMinutes(1)).peek()).contains("beta-ready");
        assertThat(beta.rateLimiter("beta:rate", RATE).tryAcquire(4).granted()).as("their permits, all left")
                .isTrue();
        assertThat(beta.countDownLatch("beta:latch", 3, Duration.ofMinutes(5)).getCount()).isEqualTo(2L);
        assertThat(theirLine.holder().release()).isTrue();
        assertThat(theirLine.inLine().get(20, TimeUnit.SECONDS)).as("their waiter, next in line").isPresent()
                .get().satisfies(Lease::close);
        assertThat(theirs.lease().release()).isTrue();
        assertThat(mine.lease().release()).isTrue();
        assertThat(myLine.holder().release()).isTrue();
        myLine.inLine().get(20, TimeUnit.SECONDS).orElseThrow().close();
    }

    @Test
    void listingsShowATenantItsOwnObjectsOnly() throws Exception {
        Coordis acme = connect("acme");
        Coordis beta = connect("beta");
        setUp(acme, "acme");
        setUp(beta, "beta");
        // a lock taken by a foreign client inside beta's prefix, as another language's client would
        redis.server().command("SET", "beta:foreign", "x", "PX", "30000");

        for (String t : List.of("acme", "beta")) {
            Inspector in = (t.equals("acme") ? acme : beta).inspector();
            assertThat(in.locks("*")).extracting(LockState::name).as(t)
                    .containsExactlyElementsOf(t.equals("acme") ? List.of("acme:lock") : List.of("beta:foreign", "beta:lock"));
            assertThat(in.elections("*")).extracting(ElectionState::name).as(t).containsExactly(t + ":elect");
            assertThat(in.queues("*")).extracting(QueueState::name).as(t).containsExactly(t + ":plain", t + ":q");
            List<SignalState> signals = in.signals("*");
            String other = t.equals("acme") ? "beta" : "acme";
            assertThat(signals).extracting(SignalState::channel).as(t)
                    .contains(t + ":ev", t + ":sig")
                    .doesNotContain(other + ":ev"); // an event is a key: the other's is not readable, left out
            assertThat(signals).filteredOn(s -> s.channel().equals(t + ":ev")).singleElement()
                    .satisfies(s -> assertThat(s.latched()).contains(t + "-ready"));
        }
    }
}
