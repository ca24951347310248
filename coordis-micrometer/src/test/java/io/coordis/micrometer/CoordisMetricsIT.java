package io.coordis.micrometer;

import io.coordis.Coordis;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.signal.Signal;
import io.coordis.signal.SignalListener;
import io.coordis.signal.Subscription;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.lettuce.core.metrics.MicrometerCommandLatencyRecorder;
import io.lettuce.core.metrics.MicrometerOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The meters of a real client against a real Redis, read back from a {@link SimpleMeterRegistry}. */
class CoordisMetricsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closed(T c) {
        closing.add(c);
        return c;
    }

    private CoordisMetrics metrics(CoordisMetrics.Builder builder) {
        return closed(builder.build());
    }

    private Coordis client(CoordisMetrics metrics) {
        Coordis.Builder b = Coordis.builder().url(redis.uri()).keyPrefix(Prefixed.prefix());
        return closed((metrics == null ? b : b.telemetry(metrics)).connect());
    }

    private double count(String name, String... tags) {
        var counter = registry.find(name).tags(tags).counter();
        return counter == null ? 0 : counter.count();
    }

    private long timed(String name, String... tags) {
        var timer = registry.find(name).tags(tags).timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    void acquiresAreTimedByResultAndHeldLeasesAreLongTasks() throws Exception {
        CoordisMetrics metrics = metrics(CoordisMetrics.builder(registry).tagNames(Set.of("m:report")));
        Coordis a = client(metrics);
        Coordis b = client(metrics);
        DistributedLock lock = a.lock("m:report");
        try (Lease lease = lock.acquire(Duration.ofSeconds(1)).orElseThrow()) {
            LongTaskTimer held = registry.find("coordis.lock.held").tags("name", "m:report").longTaskTimer();
            assertThat(held).isNotNull();
            assertThat(held.activeTasks()).isEqualTo(1);
            assertThat(b.lock("m:report").tryAcquire()).isEmpty();
            assertThat(b.lock("m:report").acquire(Duration.ofMillis(100))).isEmpty();
            assertThat(lease.isHeld()).isTrue();
        }
        assertThat(registry.find("coordis.lock.held").tags("name", "m:report").longTaskTimer().activeTasks()).isZero();
        assertThat(timed("coordis.lock.acquire", "name", "m:report", "result", "acquired")).isEqualTo(1);
        assertThat(timed("coordis.lock.acquire", "name", "m:report", "result", "busy")).isEqualTo(1);
        var timeout = registry.find("coordis.lock.acquire").tags("name", "m:report", "result", "timeout").timer();
        assertThat(timeout.count()).isEqualTo(1);
        assertThat(timeout.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(90);

        // a name off the allowlist is tagged "other", never itself
        a.lock("m:orders:42").tryAcquire().orElseThrow().close();
        assertThat(timed("coordis.lock.acquire", "name", "other", "result", "acquired")).isEqualTo(1);
        assertThat(registry.find("coordis.lock.acquire").tags("name", "m:orders:42").timer()).isNull();
    }

    @Test
    void aResolverChoosesTheTagValue() throws Exception {
        CoordisMetrics metrics = metrics(CoordisMetrics.builder(registry)
                .tagNames(n -> n.startsWith("m:order:") ? "m:order:*" : null));
        Coordis c = client(metrics);
        c.lock("m:order:1").tryAcquire().orElseThrow().close();
        c.lock("m:order:2").tryAcquire().orElseThrow().close();
        c.lock("m:unrelated").tryAcquire().orElseThrow().close();
        assertThat(timed("coordis.lock.acquire", "name", "m:order:*", "result", "acquired")).isEqualTo(2);
        assertThat(timed("coordis.lock.acquire", "name", "other", "result", "acquired")).isEqualTo(1);
    }

    @Test
    void anInterruptedAcquireIsCountedAsInterrupted() throws Exception {
        Coordis c = client(metrics(CoordisMetrics.builder(registry)));
        try (Lease ignored = c.lock("m:busy").acquire(Duration.ofSeconds(1)).orElseThrow()) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread mine = new Thread(() -> {
                try {
                    c.lock("m:busy").acquire(Duration.ofSeconds(30));
                } catch (InterruptedException e) {
                    thrown.set(e);
                }
            });
            mine.start();
            Thread.sleep(150);
            mine.interrupt();
            mine.join(5_000);
            assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        }
        assertThat(timed("coordis.lock.acquire", "name", "other", "result", "interrupted")).isEqualTo(1);
    }

    @Test
    void aLeaseLostUnderItsHolderIsCountedAndRenewalsByOutcome() throws Exception {
        Coordis c = client(metrics(CoordisMetrics.builder(registry).tagNames(Set.of("m:lost", "m:kept"))));
        LockOptions shortTtl = LockOptions.defaults().withTtl(Duration.ofMillis(300));
        try (Lease kept = c.lock("m:kept", shortTtl).acquire(Duration.ofSeconds(1)).orElseThrow()) {
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    count("coordis.lock.renewals", "name", "m:kept", "outcome", "renewed") >= 2);
            assertThat(kept.isHeld()).isTrue();
        }

        Lease lost = c.lock("m:lost", shortTtl).acquire(Duration.ofSeconds(1)).orElseThrow();
        redis.server().command("DEL", Prefixed.key("m:lost"));
        lost.lost().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(count("coordis.lock.lost", "name", "m:lost", "reason", "not_ours")).isEqualTo(1);
        assertThat(count("coordis.lock.renewals", "name", "m:lost", "outcome", "refused")).isEqualTo(1);
        assertThat(registry.find("coordis.lock.held").tags("name", "m:lost").longTaskTimer().activeTasks()).isZero();
        assertThat(count("coordis.lock.lost", "name", "m:kept")).isZero();
        lost.close();
    }

    @Test
    void leadershipGaugesFollowCampaignsAndResignations() throws Exception {
        MeterRegistry other = new SimpleMeterRegistry();
        Coordis a = client(metrics(CoordisMetrics.builder(registry).tagNames(Set.of("m:leader"))));
        Coordis b = client(metrics(CoordisMetrics.builder(other).tagNames(Set.of("m:leader"))));
        ElectionOptions options = ElectionOptions.defaults().withTtl(Duration.ofSeconds(2));
        LeaderElection first = closed(a.election("m:leader", options));
        LeaderElection second = closed(b.election("m:leader", options));

        Leadership won = first.campaign(Duration.ofSeconds(2)).orElseThrow();
        assertThat(registry.get("coordis.election.leader").tags("name", "m:leader").gauge().value()).isEqualTo(1);
        assertThat(registry.get("coordis.election.term").tags("name", "m:leader").gauge().value())
                .isEqualTo(won.term());
        assertThat(second.campaign(Duration.ofMillis(100))).isEmpty();
        assertThat(other.get("coordis.election.campaign").tags("name", "m:leader", "result", "timeout").timer()
                .count()).isEqualTo(1);

        assertThat(won.resign()).isTrue();
        assertThat(registry.get("coordis.election.leader").tags("name", "m:leader").gauge().value()).isZero();
        Leadership next = second.campaign(Duration.ofSeconds(2)).orElseThrow();
        assertThat(other.get("coordis.election.leader").tags("name", "m:leader").gauge().value()).isEqualTo(1);
        assertThat(other.get("coordis.election.term").tags("name", "m:leader").gauge().value())
                .isEqualTo(next.term());
        assertThat(count("coordis.election.transitions", "name", "m:leader", "to", "leader")).isEqualTo(1);
        assertThat(count("coordis.election.transitions", "name", "m:leader", "to", "follower")).isEqualTo(1);
        assertThat(timed("coordis.election.campaign", "name", "m:leader", "result", "acquired")).isEqualTo(1);
        assertThat(registry.get("coordis.election.held").tags("name", "m:leader").longTaskTimer().activeTasks())
                .isZero();
        assertThat(other.get("coordis.election.held").tags("name", "m:leader").longTaskTimer().activeTasks())
                .isEqualTo(1);
        next.resign();
    }

    @Test
    void queueMessagesByOutcomeAndPolledGauges() throws Exception {
        CoordisMetrics metrics = metrics(CoordisMetrics.builder(registry).tagNames(Set.of("m:jobs")));
        Coordis c = client(metrics);
        QueueOptions options = QueueOptions.defaults().withMaxAttempts(2).withHeartbeatTtl(Duration.ofMillis(300));
        ReliableQueue jobs = c.reliableQueue("m:jobs", options);
        metrics.watch(jobs, Duration.ofMillis(100));
        jobs.pushAll(List.of(bytes("a"), bytes("b"), bytes("c"), bytes("d")));
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge("coordis.queue.depth", "m:jobs") == 4);
        assertThat(registry.get("coordis.queue.oldest.age").tags("name", "m:jobs").timeGauge()
                .value(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(0);

        try (Consumer consumer = c.reliableQueue("m:jobs", options).consumer()) {
            Delivery first = consumer.take(Duration.ofSeconds(1)).orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> gauge("coordis.queue.inflight", "m:jobs") == 1);
            Thread.sleep(20);
            assertThat(first.ack()).isEqualTo(Outcome.ACKED);
            Delivery second = consumer.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(second.nack()).isEqualTo(Outcome.REQUEUED);
            Delivery again = consumer.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(again.payload()).isEqualTo(second.payload());
            assertThat(again.nack()).isEqualTo(Outcome.DEAD_LETTERED);
            Delivery later = consumer.take(Duration.ofSeconds(1)).orElseThrow();
            assertThat(later.nack(Duration.ofMinutes(5))).isEqualTo(Outcome.DELAYED);
        }
        assertThat(count("coordis.queue.messages", "name", "m:jobs", "outcome", "acked")).isEqualTo(1);
        assertThat(count("coordis.queue.messages", "name", "m:jobs", "outcome", "nacked")).isEqualTo(2);
        assertThat(count("coordis.queue.messages", "name", "m:jobs", "outcome", "dead_lettered")).isEqualTo(1);
        var processing = registry.get("coordis.queue.processing").tags("name", "m:jobs", "outcome", "acked").timer();
        assertThat(processing.count()).isEqualTo(1);
        assertThat(processing.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(20);
        await().atMost(Duration.ofSeconds(5)).until(() -> gauge("coordis.queue.dead", "m:jobs") == 1
                && gauge("coordis.queue.delayed", "m:jobs") == 1 && gauge("coordis.queue.depth", "m:jobs") == 1
                && gauge("coordis.queue.inflight", "m:jobs") == 0);
        // settled for good: the ack and the dead-lettering nack (a requeue and a delayed retry are not)
        await().atMost(Duration.ofSeconds(5)).until(() -> registry.get("coordis.queue.settled").tags("name", "m:jobs")
                .functionCounter().count() == 2);

        // a consumer whose client dies holding a message: a sweep gives it back, counted as redelivered
        Coordis dying = Coordis.builder().url(redis.uri()).keyPrefix(Prefixed.prefix()).connect();
        Consumer stranded = dying.reliableQueue("m:jobs", options).consumer();
        assertThat(stranded.take(Duration.ofSeconds(1))).isPresent();
        dying.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            jobs.sweep();
            return count("coordis.queue.messages", "name", "m:jobs", "outcome", "redelivered") == 1;
        });
    }

    private double gauge(String name, String queue) {
        return registry.get(name).tags("name", queue).gauge().value();
    }

    @Test
    void signalsPublishedReceivedAndGaps() throws Exception {
        Coordis c = client(metrics(CoordisMetrics.builder(registry).tagNames(Set.of("m:beat"))));
        CountDownLatch heard = new CountDownLatch(2);
        CountDownLatch gap = new CountDownLatch(1);
        try (Subscription ignored = c.signals().listen(List.of("m:beat"), new SignalListener() {
            @Override
            public void onSignal(Signal signal) {
                heard.countDown();
            }

            @Override
            public void onGap(String node) {
                gap.countDown();
            }
        })) {
            assertThat(c.signals().signal("m:beat", "1")).isEqualTo(1);
            assertThat(c.signals().signal("m:beat", "2")).isEqualTo(1);
            assertThat(heard.await(5, TimeUnit.SECONDS)).isTrue();
            redis.server().command("CLIENT", "KILL", "TYPE", "pubsub");
            assertThat(gap.await(5, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(count("coordis.signals.published", "name", "m:beat")).isEqualTo(2);
        assertThat(count("coordis.signals.received", "name", "m:beat")).isEqualTo(2);
        assertThat(count("coordis.signals.gaps", "node", redis.server().address())).isEqualTo(1);
    }

    @Test
    void observationsSurroundAcquiresAndCampaigns() throws Exception {
        TestObservationRegistry observations = TestObservationRegistry.create();
        Coordis c = client(metrics(CoordisMetrics.builder(registry).observations(observations)));
        c.lock("m:traced").tryAcquire().orElseThrow().close();
        LeaderElection election = closed(c.election("m:traced-election"));
        election.campaign(Duration.ofSeconds(1)).orElseThrow().resign();

        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo("coordis.lock.acquiring").that()
                .hasBeenStarted().hasBeenStopped()
                .hasLowCardinalityKeyValue("name", "other")
                .hasLowCardinalityKeyValue("result", "acquired")
                .hasHighCardinalityKeyValue("coordis.name", "m:traced");
        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo("coordis.election.campaigning").that()
                .hasBeenStopped().hasLowCardinalityKeyValue("result", "acquired");
    }

    @Test
    void aClientWithoutTelemetryAnswersTheSame() throws Exception {
        assertThat(scenario(client(null), "m:plain:")).isEqualTo(scenario(client(CoordisMetrics.of(registry)), "m:metered:"));
        assertThat(timed("coordis.lock.acquire", "name", "other", "result", "busy")).isEqualTo(1);
    }

    /** The same operations, and what each answered. */
    private static List<Object> scenario(Coordis c, String prefix) throws Exception {
        List<Object> answers = new ArrayList<>();
        Lease lease = c.lock(prefix + "lock").acquire(Duration.ofSeconds(1)).orElseThrow();
        answers.add(lease.isHeld());
        answers.add(c.lock(prefix + "lock").tryAcquire().isPresent());
        answers.add(lease.release());
        answers.add(lease.release());
        ReliableQueue q = c.reliableQueue(prefix + "q");
        q.push("x");
        try (Consumer consumer = q.consumer()) {
            Optional<Delivery> d = consumer.take(Duration.ofSeconds(1));
            answers.add(d.map(x -> new String(x.payload(), StandardCharsets.UTF_8)).orElse(null));
            answers.add(d.orElseThrow().ack());
            answers.add(d.orElseThrow().ack());
        }
        answers.add(c.signals().signal(prefix + "nobody", "x"));
        try (LeaderElection e = c.election(prefix + "e")) {
            answers.add(e.campaign(Duration.ofSeconds(1)).map(Leadership::resign));
        }
        return answers;
    }

    @Test
    void lettuceCommandMetricsThroughTheClientsResourcesWhichOutliveTheClient() throws Exception {
        ClientResources resources = DefaultClientResources.builder()
                .commandLatencyRecorder(new MicrometerCommandLatencyRecorder(registry, MicrometerOptions.create()))
                .build();
        try {
            try (Coordis c = Coordis.builder().url(redis.uri()).keyPrefix(Prefixed.prefix()).clientResources(resources)
                    .connect()) {
                c.lock("m:lettuce").tryAcquire().orElseThrow().close();
            }
            assertThat(registry.find("lettuce.command.completion").timers()).isNotEmpty();
            assertThat(resources.eventExecutorGroup().isShuttingDown()).isFalse();
            try (Coordis again = Coordis.builder().url(redis.uri()).keyPrefix(Prefixed.prefix())
                    .clientResources(resources).connect()) {
                assertThat(again.lock("m:lettuce").tryAcquire()).isPresent();
            }
        } finally {
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void rateLimiterDecisionsCountPermitsByOutcomeUnderTheFamilysName() throws Exception {
        CoordisMetrics metrics = metrics(CoordisMetrics.builder(registry).tagNames(Set.of("m:api")));
        Coordis c = client(metrics);
        RateLimiter users = c.rateLimiter("m:api", RateLimit.parse("3/1m"));
        assertThat(users.forKey("alice").tryAcquire(2).granted()).isTrue();
        assertThat(users.forKey("alice").tryAcquire(2).granted()).isFalse();
        assertThat(users.forKey("bob").acquire(3, Duration.ZERO)).isTrue();
        assertThat(c.rateLimiter("m:unlisted", RateLimit.parse("1/1m")).tryAcquire().granted()).isTrue();
        assertThat(count("coordis.ratelimit.permits", "name", "m:api", "outcome", "granted")).isEqualTo(5);
        assertThat(count("coordis.ratelimit.permits", "name", "m:api", "outcome", "denied")).isEqualTo(2);
        assertThat(count("coordis.ratelimit.permits", "name", CoordisMetrics.OTHER, "outcome", "granted")).isEqualTo(1);
    }
}
