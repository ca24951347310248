package io.coordis.soak;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.signal.Signal;
import io.coordis.signal.SignalListener;
import io.coordis.signal.Subscription;
import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.Nemesis;
import io.coordis.testkit.history.Histories;
import io.coordis.testkit.history.History;
import io.coordis.testkit.history.Op;
import io.coordis.testkit.history.SignalChecker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Signals for {@code soak.signal.minutes} (default 15) through faults: a sender publishes 100 signals a second
 * to two listeners, one connected to Redis directly and one through a fault proxy, while a seeded nemesis kills
 * -9 and restarts Redis, SIGSTOPs and CLIENT-PAUSEs it, slows and blackholes the proxy, and every 1-4 s all
 * pub/sub connections are killed ({@code CLIENT KILL TYPE pubsub}). Everyone records a history.
 *
 * <p>Asserted ({@link SignalChecker}, per listener): every signal sent during its subscription was heard or is
 * covered by a gap the library reported (none silently missed), none heard that nobody sent, none heard twice
 * (at-most-once delivery: a reconnection over a slow link once left a second subscribed connection behind);
 * and the faults cost signals (gaps were reported). Reported: the gap rate (gaps per minute, missed signals per
 * 1,000 sent) and the time from a pub/sub connection being killed to the gap being reported.
 * When a listener heard a signal twice or the run failed, the histories and fault times are kept beside the
 * report.
 */
class SignalSoak {
    private static final String CHANNEL = "soak:signal";
    private static final long SEND_EVERY_MS = 10;

    @TempDir
    Path dir;

    @Test
    void everyMissedSignalIsCoveredByAReportedGap() throws Exception {
        Duration duration = SoakSettings.signalDuration();
        long seed = SoakSettings.seed("SignalSoak");
        SoakReport report = new SoakReport("SignalSoak: signals through faults and killed pub/sub connections", seed);
        List<Long> directGaps = Collections.synchronizedList(new ArrayList<>());
        List<Long> kills = Collections.synchronizedList(new ArrayList<>());
        long sent = 0;
        long unsure = 0;
        List<Nemesis.Event> events;
        long directGapCount;
        long proxiedGapCount;
        List<String> evidence = Collections.synchronizedList(new ArrayList<>());
        long begin;
        try (RedisServer redis = RedisServer.start();
             FaultProxy proxy = FaultProxy.to(redis);
             Watch admin = new Watch(redis);
             Coordis sender = connect(redis.uri());
             Coordis direct = connect(redis.uri());
             Coordis proxied = connect(proxy.uri());
             History sends = History.open(dir.resolve("sender.jsonl"), "sender");
             History directHeard = History.open(dir.resolve("direct.jsonl"), "direct");
             History proxiedHeard = History.open(dir.resolve("proxied.jsonl"), "proxied")) {
            Subscription directSubscription = direct.signals().listen(List.of(CHANNEL), recorder(directHeard, directGaps));
            directHeard.ok("subscribed", CHANNEL, "", -1);
            Subscription proxiedSubscription = proxied.signals().listen(List.of(CHANNEL), recorder(proxiedHeard, null));
            proxiedHeard.ok("subscribed", CHANNEL, "", -1);

            begin = System.nanoTime();
            long end = begin + duration.toNanos();
            Thread killer = new Thread(() -> killPubSub(admin, new Random(seed + 1), end, kills), "soak-pubsub-killer");
            killer.setDaemon(true);
            killer.start();
            long started = begin;
            Thread sampler = new Thread(() -> sample(redis, proxy, started, end, evidence), "soak-subscriber-sampler");
            sampler.setDaemon(true);
            sampler.start();
            long nextProgress = begin + TimeUnit.MINUTES.toNanos(1);
            try (Nemesis nemesis = Nemesis.builder(seed).servers(List.of(redis)).proxies(List.of(proxy))
                    .kinds(EnumSet.of(Nemesis.Kind.KILL_RESTART, Nemesis.Kind.PAUSE, Nemesis.Kind.CLIENT_PAUSE,
                            Nemesis.Kind.LATENCY, Nemesis.Kind.BLACKHOLE))
                    .gap(Duration.ofMillis(2000), Duration.ofMillis(4000)).hold(Duration.ofMillis(300), Duration.ofMillis(1500))
                    .restartDelay(Duration.ofMillis(500)).build()) {
                nemesis.start(duration);
                for (long i = 0; System.nanoTime() < end; i++) {
                    String id = "s-" + i;
                    sends.invoke("notify", CHANNEL, id, -1);
                    try {
                        sender.signals().signal(CHANNEL, id);
                        sends.ok("notify", CHANNEL, id, -1);
                        sent++;
                    } catch (CoordisException e) {
                        sends.info("notify", CHANNEL, id, -1); // published or not: unknown
                        unsure++;
                    }
                    if (System.nanoTime() >= nextProgress) {
                        System.out.printf("SignalSoak: %s of %s, %,d sent, %d gaps reported (direct) and %d (proxied)%n",
                                SoakReport.duration(Duration.ofNanos(System.nanoTime() - begin)),
                                SoakReport.duration(duration), sent, directSubscription.gaps(), proxiedSubscription.gaps());
                        nextProgress += TimeUnit.MINUTES.toNanos(1);
                    }
                    Thread.sleep(SEND_EVERY_MS);
                }
                assertThat(nemesis.await(Duration.ofSeconds(30))).as("nemesis finished").isTrue();
                events = nemesis.events();
            }
            killer.join(30_000);
            sampler.join(30_000);
            Thread.sleep(2000); // the last signals arrive
            evidence.add("at the end: Redis counts "
                    + ((List<?>) redis.command("PUBSUB", "NUMSUB", Prefixed.key(CHANNEL))).get(1)
                    + " subscribers of " + CHANNEL + " (2 listeners); the proxy has " + proxy.connectionCount()
                    + " connections open, accepted " + proxy.acceptedCount());
            directHeard.ok("unsubscribed", CHANNEL, "", -1);
            proxiedHeard.ok("unsubscribed", CHANNEL, "", -1);
            directGapCount = directSubscription.gaps();
            proxiedGapCount = proxiedSubscription.gaps();
            directSubscription.close();
            proxiedSubscription.close();
        }
        List<Op> ops = Histories.read(dir);
        SignalChecker.Result d = SignalChecker.check(ops.stream().filter(o -> !o.process().equals("proxied")).toList());
        SignalChecker.Result p = SignalChecker.check(ops.stream().filter(o -> !o.process().equals("direct")).toList());
        Samples killToGap = new Samples();
        int noGap = 0;
        synchronized (directGaps) {
            for (long k : List.copyOf(kills)) {
                long first = directGaps.stream().filter(g -> g >= k).min(Long::compare).orElse(-1L);
                if (first >= 0 && first - k < TimeUnit.SECONDS.toNanos(5)) {
                    killToGap.add(first - k);
                } else {
                    noGap++;
                }
            }
        }
        double minutes = duration.toSeconds() / 60.0;
        Map<Nemesis.Kind, Long> byKind = events.stream()
                .collect(Collectors.groupingBy(Nemesis.Event::kind, TreeMap::new, Collectors.counting()));
        report.figure("duration (soak.signal.minutes)", SoakReport.duration(duration))
                .figure("faults injected", (events.size() + kills.size()) + ": " + byKind + ", pub/sub connections killed "
                        + kills.size() + " times")
                .figure("signals sent / failed by Redis (published or not)", SoakReport.count(sent) + " / " + unsure)
                .figure("direct listener: heard / missed, each covered by a gap / silently missed",
                        SoakReport.count(d.heard()) + " / " + d.missedWithGap() + " / " + d.silentlyMissed())
                .figure("proxied listener: heard / missed, each covered by a gap / silently missed",
                        SoakReport.count(p.heard()) + " / " + p.missedWithGap() + " / " + p.silentlyMissed())
                .figure("heard twice / heard but never sent",
                        (d.duplicates() + p.duplicates()) + " / " + (d.phantoms() + p.phantoms()))
                .figure("gaps reported (direct / proxied)", directGapCount + " / " + proxiedGapCount + " ("
                        + String.format(java.util.Locale.ROOT, "%.1f", (directGapCount + proxiedGapCount) / (2 * minutes))
                        + " per listener and minute)")
                .figure("gap rate: signals missed per 1,000 sent (direct / proxied)",
                        SoakReport.rate(d.missedWithGap(), d.sent(), 1000) + " / " + SoakReport.rate(p.missedWithGap(), p.sent(), 1000))
                .figure("pub/sub connection killed to gap reported (direct)", killToGap.summary()
                        + (noGap > 0 ? "; " + noGap + " kills without a gap within 5 s (Redis down or paused then)" : ""));
        report.check("no signal silently missed (direct and proxied)", d.silentlyMissed() == 0 && p.silentlyMissed() == 0)
                .check("no signal heard that nobody sent", d.phantoms() == 0 && p.phantoms() == 0)
                .check("no signal heard twice (direct and proxied)", d.duplicates() == 0 && p.duplicates() == 0)
                .check("the faults cost signals and gaps were reported", !kills.isEmpty() && directGapCount > 0
                        && proxiedGapCount > 0 && d.heard() > 0 && p.heard() > 0);
        report.note("A signal counts for a listener when its send began after the listener subscribed and returned before"
                + " it unsubscribed; sends that Redis failed are left out (they may or may not have been published).");
        if (!d.examples().isEmpty() || !p.examples().isEmpty()) {
            report.note("Examples: direct " + d.examples() + "; proxied " + p.examples());
        }
        evidence.add("times in ms since the first signal; history times are wall-clock micros, first signal at "
                + ops.stream().filter(o -> o.is("invoke", "notify")).findFirst().map(Op::micros).orElse(-1L));
        events.forEach(e -> evidence.add(e.kind() + " " + e.target() + " " + millisSince(begin, e.startNanos()) + ".."
                + millisSince(begin, e.healedNanos())));
        List.copyOf(kills).forEach(k -> evidence.add("pubsub kill " + millisSince(begin, k)));
        List.copyOf(directGaps).forEach(g -> evidence.add("direct gap " + millisSince(begin, g)));
        if (d.duplicates() + p.duplicates() > 0) {
            report.note("Signals heard twice: see 'subscribers' in the evidence for how many connections Redis counted"
                    + " as subscribed to the channel (2 listeners) while it happened.");
        }
        report.keepEvidence(dir, evidence, d.duplicates() + p.duplicates() > 0);
        report.write();

        assertThat(d.silentlyMissed() + d.phantoms() + d.duplicates()).as("direct listener (seed " + seed + "): " + d).isZero();
        assertThat(p.silentlyMissed() + p.phantoms() + p.duplicates()).as("proxied listener (seed " + seed + "): " + p).isZero();
        assertThat(kills).as("pub/sub kills").isNotEmpty();
        assertThat(directGapCount).as("gaps reported to the direct listener").isPositive();
        assertThat(proxiedGapCount).as("gaps reported to the proxied listener").isPositive();
        assertThat(d.heard() + p.heard()).as("signals heard").isPositive();
    }

    /**
     * Every 100 ms until {@code end}: how many subscribers Redis counts on the channel (2 listeners) and how
     * many connections the proxy holds; a line of evidence whenever either changes.
     */
    private static void sample(RedisServer redis, FaultProxy proxy, long begin, long end, List<String> evidence) {
        String last = "";
        while (System.nanoTime() < end) {
            String now;
            try {
                now = "subscribers " + ((List<?>) redis.command("PUBSUB", "NUMSUB", Prefixed.key(CHANNEL))).get(1)
                        + ", proxy connections " + proxy.connectionCount();
            } catch (RuntimeException e) {
                now = "subscribers unknown (" + e.getClass().getSimpleName() + "), proxy connections " + proxy.connectionCount();
            }
            if (!now.equals(last)) {
                evidence.add(now + " at " + millisSince(begin, System.nanoTime()));
                last = now;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static long millisSince(long begin, long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos - begin);
    }

    private static Coordis connect(String uri) {
        return TestClients.builder().url(uri).commandTimeout(Duration.ofSeconds(1)).connect();
    }

    private static SignalListener recorder(History history, List<Long> gapTimes) {
        return new SignalListener() {
            @Override
            public void onSignal(Signal signal) {
                history.ok("receive", CHANNEL, signal.data(), -1);
            }

            @Override
            public void onGap(String node) {
                if (gapTimes != null) {
                    gapTimes.add(System.nanoTime());
                }
                history.info("gap", CHANNEL, node, -1);
            }
        };
    }

    /** Kills every pub/sub connection every 1-4 s until {@code end}, recording when. */
    private static void killPubSub(Watch admin, Random random, long end, List<Long> kills) {
        try {
            while (true) {
                Thread.sleep(1000 + random.nextInt(3000));
                if (System.nanoTime() >= end) {
                    return;
                }
                kills.add(System.nanoTime());
                admin.command("CLIENT", "KILL", "TYPE", "pubsub");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
