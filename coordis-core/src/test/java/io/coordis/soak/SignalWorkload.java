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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Signals through faults: a sender publishes 100 signals a second to two listeners, one connected to Redis
 * directly and one through a fault proxy of its own, and every 1-4 s all pub/sub connections are killed
 * ({@code CLIENT KILL TYPE pubsub}, the workload's own fault). Everyone records a history.
 *
 * <p>Checked ({@link SignalChecker}, per listener): every signal sent during its subscription was heard or is
 * covered by a gap the library reported (none silently missed), none heard that nobody sent, none heard twice;
 * and the faults cost signals (gaps were reported). Reported: the gap rate and the time from a pub/sub connection
 * being killed to the gap being reported. When a listener heard a signal twice or the run failed, the histories and
 * fault times are kept beside the report.
 */
final class SignalWorkload implements Workload {
    private static final String CHANNEL = "soak:signal";
    private static final long SEND_EVERY_MS = 10;

    private final RedisServer redis;
    private final FaultProxy proxy;
    private final Path dir;
    private final List<Long> directGaps = Collections.synchronizedList(new ArrayList<>());
    private final List<Long> kills = Collections.synchronizedList(new ArrayList<>());
    private final List<String> evidence = Collections.synchronizedList(new ArrayList<>());
    private final List<AutoCloseable> closing = new ArrayList<>();
    private Watch admin;
    private Coordis sender;
    private History sends;
    private History directHeard;
    private History proxiedHeard;
    private Subscription directSubscription;
    private Subscription proxiedSubscription;
    private Thread sending;
    private Thread sampler;
    private volatile boolean stopped;
    private volatile long sent;
    private volatile long unsure;
    private long begin;

    /** {@code proxy} leads to {@code redis} and is the proxied listener's alone (a lost reply there would lose a signal silently). */
    SignalWorkload(RedisServer redis, FaultProxy proxy, Path dir) {
        this.redis = redis;
        this.proxy = proxy;
        this.dir = dir;
    }

    @Override
    public String name() {
        return "signals";
    }

    @Override
    public void start() throws Exception {
        Files.createDirectories(dir);
        admin = keep(new Watch(redis));
        sender = keep(connect(redis.uri()));
        Coordis direct = keep(connect(redis.uri()));
        Coordis proxied = keep(connect(proxy.uri()));
        sends = keep(History.open(dir.resolve("sender.jsonl"), "sender"));
        directHeard = keep(History.open(dir.resolve("direct.jsonl"), "direct"));
        proxiedHeard = keep(History.open(dir.resolve("proxied.jsonl"), "proxied"));
        directSubscription = direct.signals().listen(List.of(CHANNEL), recorder(directHeard, directGaps));
        directHeard.ok("subscribed", CHANNEL, "", -1);
        proxiedSubscription = proxied.signals().listen(List.of(CHANNEL), recorder(proxiedHeard, null));
        proxiedHeard.ok("subscribed", CHANNEL, "", -1);
        begin = System.nanoTime();
        sending = new Thread(this::send, "soak-signal-sender");
        sending.setDaemon(true);
        sending.start();
        sampler = new Thread(this::sample, "soak-subscriber-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    private <T extends AutoCloseable> T keep(T t) {
        closing.add(t);
        return t;
    }

    private void send() {
        try {
            for (long i = 0; !stopped; i++) {
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
                Thread.sleep(SEND_EVERY_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills every pub/sub connection every 1-4 s until {@code end}, recording when. */
    @Override
    public void disturb(long end, Random random) throws InterruptedException {
        while (true) {
            Thread.sleep(1000 + random.nextInt(3000));
            if (System.nanoTime() >= end || stopped) {
                return;
            }
            kills.add(System.nanoTime());
            admin.command("CLIENT", "KILL", "TYPE", "pubsub");
        }
    }

    @Override
    public String progress() {
        return String.format("%,d sent, %d gaps reported (direct) and %d (proxied)", sent, directSubscription.gaps(),
                proxiedSubscription.gaps());
    }

    /**
     * Every 100 ms until stopped: how many subscribers Redis counts on the channel (2 listeners) and how many
     * connections the proxy holds; a line of evidence whenever either changes.
     */
    private void sample() {
        String last = "";
        while (!stopped) {
            String now;
            try {
                now = "subscribers " + ((List<?>) redis.command("PUBSUB", "NUMSUB", Prefixed.key(CHANNEL))).get(1)
                        + ", proxy connections " + proxy.connectionCount();
            } catch (RuntimeException e) {
                now = "subscribers unknown (" + e.getClass().getSimpleName() + "), proxy connections " + proxy.connectionCount();
            }
            if (!now.equals(last)) {
                evidence.add(now + " at " + millisSince(System.nanoTime()));
                last = now;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    @Override
    public void finish(SoakReport report, List<Nemesis.Event> faults) throws Exception {
        stopped = true;
        sending.join(30_000);
        sampler.join(30_000);
        Thread.sleep(2000); // the last signals arrive
        evidence.add("at the end: Redis counts " + admin.command("PUBSUB", "NUMSUB", Prefixed.key(CHANNEL))
                + " for " + CHANNEL + " (2 listeners); the proxy has " + proxy.connectionCount()
                + " connections open, accepted " + proxy.acceptedCount());
        directHeard.ok("unsubscribed", CHANNEL, "", -1);
        proxiedHeard.ok("unsubscribed", CHANNEL, "", -1);
        long directGapCount = directSubscription.gaps();
        long proxiedGapCount = proxiedSubscription.gaps();
        directSubscription.close();
        proxiedSubscription.close();
        for (History h : List.of(sends, directHeard, proxiedHeard)) {
            h.close();
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
        double minutes = Math.max(1e-3, (System.nanoTime() - begin) / 60e9);
        report.figure("pub/sub connections killed", kills.size())
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
        faults.forEach(e -> evidence.add(e.kind() + " " + e.target() + " " + millisSince(e.startNanos()) + ".."
                + millisSince(e.healedNanos())));
        List.copyOf(kills).forEach(k -> evidence.add("pubsub kill " + millisSince(k)));
        List.copyOf(directGaps).forEach(g -> evidence.add("direct gap " + millisSince(g)));
        if (d.duplicates() + p.duplicates() > 0) {
            report.note("Signals heard twice: see 'subscribers' in the evidence for how many connections Redis counted"
                    + " as subscribed to the channel (2 listeners) while it happened.");
        }
        report.keepEvidence(dir, List.copyOf(evidence), d.duplicates() + p.duplicates() > 0);
    }

    @Override
    public void close() throws Exception {
        stopped = true;
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private long millisSince(long nanos) {
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
}
