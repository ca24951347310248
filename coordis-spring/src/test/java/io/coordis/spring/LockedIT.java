package io.coordis.spring;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.lock.Lease;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link Locked} methods of two application contexts (two clients) on one Redis. */
class LockedIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone().noFlush();

    /** The referee of the test running now. */
    static volatile FencedResource referee;
    static AnnotationConfigApplicationContext a;
    static AnnotationConfigApplicationContext b;

    @BeforeAll
    static void start() {
        a = TestContexts.start("a", redis.uri(), LockedJobs.class);
        b = TestContexts.start("b", redis.uri(), LockedJobs.class);
    }

    @AfterEach
    void closeReferee() {
        if (referee != null) {
            referee.close();
            referee = null;
        }
    }

    @AfterAll
    static void stop() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    /**
     * The methods under test; the referee judges the ones that write. The test calls them through the Spring
     * proxy, so it reads the state through methods too (a class proxy's own fields stay empty).
     */
    public static class LockedJobs {
        private final String instance;
        private final AtomicInteger ran = new AtomicInteger();
        private volatile Coordis coordis;

        LockedJobs(@Value("${instance}") String instance) {
            this.instance = instance;
        }

        public String instance() {
            return instance;
        }

        public int ran() {
            return ran.get();
        }

        public void use(Coordis client) {
            this.coordis = client;
        }

        @Locked(name = "job:shared", ttl = "5s", whenBusy = WhenBusy.WAIT)
        public void shared(String client) throws InterruptedException {
            touch(client, 2);
        }

        /** Broken on purpose: each context names its own lock, so nothing excludes the other context. */
        @Locked(name = "job:${instance}", ttl = "5s", whenBusy = WhenBusy.WAIT)
        public void perInstance(String client) throws InterruptedException {
            touch(client, 20);
        }

        private void touch(String client, long millis) throws InterruptedException {
            long token = CoordisContext.fencingToken();
            referee.enter(client, token);
            referee.write(client, token);
            Thread.sleep(millis);
            referee.exit(client, token);
        }

        @Locked(name = "order:#{#orderId}", whenBusy = WhenBusy.SKIP)
        public String orderKey(String orderId) {
            return CoordisContext.currentLease().map(Lease::key).orElse(null);
        }

        @Locked(name = "batch:#{#p0}:#{#p1 * 2}", whenBusy = WhenBusy.SKIP)
        public String positionalKey(String kind, int part) {
            return CoordisContext.currentLease().map(Lease::key).orElse(null);
        }

        @Locked(name = "busy")
        public void skipsWhenBusy() {
            ran.incrementAndGet();
        }

        @Locked(name = "busy", whenBusy = WhenBusy.SKIP)
        public Optional<String> optionalSkipsWhenBusy() {
            return Optional.of("ran");
        }

        @Locked(name = "busy", whenBusy = WhenBusy.WAIT, maxWait = "5s")
        public String waitsWhenBusy() {
            return "ran with token " + CoordisContext.fencingToken();
        }

        @Locked(name = "busy", whenBusy = WhenBusy.WAIT, maxWait = "200ms")
        public String waitsBriefly() {
            return "ran";
        }

        @Locked(name = "token", whenBusy = WhenBusy.WAIT)
        public Long token() {
            return CoordisContext.fencingToken();
        }

        @Locked(name = "lost", ttl = "600ms")
        public void forcedOpenWhileRunning(AtomicInteger interrupted) {
            assertThat(coordis.lock("lost").forceUnlock("the test takes it away")).isPresent();
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException e) {
                interrupted.incrementAndGet();
            }
        }
    }

    static LockedJobs jobs(AnnotationConfigApplicationContext context) {
        LockedJobs jobs = context.getBean(LockedJobs.class);
        jobs.use(context.getBean(Coordis.class));
        return jobs;
    }

    /** Calls {@code job} from 3 threads per context, {@code rounds} times each, all at once. */
    static void hammer(String label, int rounds, Job job) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(6);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (AnnotationConfigApplicationContext context : List.of(a, b)) {
                LockedJobs jobs = jobs(context);
                for (int t = 0; t < 3; t++) {
                    String client = label + "-" + jobs.instance() + "-" + t;
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < rounds; i++) {
                            job.run(jobs, client);
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    interface Job {
        void run(LockedJobs jobs, String client) throws Exception;
    }

    @Test
    void lockedMethodsOfTwoContextsNeverOverlapAndTheFenceOnlyRises() throws Exception {
        referee = FencedResource.start();
        hammer("shared", 15, LockedJobs::shared);
        FencedResource.Report report = referee.report();
        assertThat(report.overlaps()).as("%s", report.notes()).isZero();
        assertThat(report.fenceRegressions()).as("%s", report.notes()).isZero();
        assertThat(report.violations()).isZero();
        assertThat(report.protocolErrors()).isZero();
        assertThat(report.enters().entrySet().stream().filter(e -> e.getKey().startsWith("shared-"))
                .mapToInt(e -> e.getValue()).sum()).as("every call ran (they wait)").isEqualTo(6 * 15);
    }

    @Test
    void theRefereeCatchesALockNamedPerContext() throws Exception {
        referee = FencedResource.start();
        hammer("broken", 6, LockedJobs::perInstance);
        FencedResource.Report report = referee.report();
        assertThat(report.overlaps()).as("a lock per context excludes nothing across contexts").isPositive();
        assertThat(report.protocolErrors()).isZero();
    }

    @Test
    void spelNamesUseTheArguments() {
        LockedJobs jobs = jobs(a);
        assertThat(jobs.orderKey("42")).isEqualTo(Prefixed.key("order:42"));
        assertThat(jobs.positionalKey("daily", 3)).isEqualTo(Prefixed.key("batch:daily:6"));
    }

    @Test
    void busyLocksSkipOrWaitAsStated() throws Exception {
        LockedJobs jobs = jobs(a);
        Coordis other = b.getBean(Coordis.class);
        int ranBefore = jobs.ran();
        try (Lease held = other.lock("busy").tryAcquire().orElseThrow()) {
            jobs.skipsWhenBusy();
            assertThat(jobs.ran()).as("a void method skips by default").isEqualTo(ranBefore);
            assertThat(jobs.optionalSkipsWhenBusy()).as("an Optional method answers empty").isEmpty();
            assertThatThrownBy(jobs::waitsBriefly).isInstanceOf(LockBusyException.class)
                    .hasMessage("lock 'busy' was still busy after waiting 200ms; LockedJobs.waitsBriefly() did not run");

            CompletableFuture<String> waiting = CompletableFuture.supplyAsync(jobs::waitsWhenBusy);
            Thread.sleep(300);
            assertThat(waiting).as("it waits while the lock is held").isNotDone();
            held.release();
            assertThat(waiting.get()).startsWith("ran with token ");
        }
        jobs.skipsWhenBusy();
        assertThat(jobs.ran()).as("a free lock runs the method").isEqualTo(ranBefore + 1);
        assertThat(jobs.optionalSkipsWhenBusy()).contains("ran");
    }

    @Test
    void theFencingNumberIsAvailableInsideAndRisesWithEveryCall() {
        assertThat(CoordisContext.currentLease()).as("outside a @Locked method").isEmpty();
        assertThatThrownBy(CoordisContext::fencingToken).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no @Locked method is running on this thread");
        long first = jobs(a).token();
        long second = jobs(b).token();
        assertThat(second).isGreaterThan(first);
        assertThat(CoordisContext.currentLease()).as("nothing stays behind").isEmpty();
    }

    @Test
    void aLockLostWhileTheMethodRunsInterruptsItAndFailsTheCall() {
        LockedJobs jobs = jobs(a);
        AtomicInteger interrupted = new AtomicInteger();
        long start = System.nanoTime();
        assertThatThrownBy(() -> jobs.forcedOpenWhileRunning(interrupted)).isInstanceOf(CoordisException.class)
                .hasMessageContaining("'lost' was lost while the work was running");
        assertThat(interrupted).as("the method was interrupted").hasValue(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(Thread.interrupted()).as("no interrupt leaks to the caller").isFalse();
    }
}
