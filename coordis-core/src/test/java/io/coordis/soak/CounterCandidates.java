package io.coordis.soak;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.election.CounterElection;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.fault.Nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The classic counter election under faults: two candidates (threads with a client each, term 2 s) run a round
 * every 600 ms; a candidate acts on a fenced resource (enters once it leads, writes every 20 ms while
 * {@link CounterElection#isLeader()}, leaves once it does not). Its own fault: every 5-10 s the leader's thread
 * stalls for the term + 1.5 s (a GC pause), so that another candidate takes over meanwhile.
 *
 * <p>This election has no fencing number, so each leadership enters the resource with the next number of a counter
 * kept here, in the order leaderships begin: a write refused as stale is a leader acting after a later leader
 * entered, two leaders acting at once. Checked: 0 writes refused as stale, no malformed requests, progress (also
 * within 10 s of the last fault). Overlaps (a stalled leader still inside when the next enters) are expected and
 * reported. The broken variant {@link #withoutTermCheck} acts while its last round made it leader, as the classic
 * function's callers do, and a stall makes it write after its term ({@link RefereeSoak} shows it is caught). A
 * leader stalled between its check and its write for longer than the drift (22 ms at a 2 s term) would be caught
 * too; that is the window the local check leaves open.
 */
final class CounterCandidates implements Workload {
    private static final Duration TERM = Duration.ofSeconds(2);
    private static final long ROUND_EVERY_MS = 600;
    private static final Duration RESUME_BOUND = Duration.ofSeconds(10);

    private static final Duration STALL = TERM.plusMillis(1500);

    private final String redis;
    private final String key;
    private final boolean termCheck;
    private final AtomicLong stalls = new AtomicLong();
    private volatile String stallNext;
    private volatile String leading;
    private final AtomicLong numbers = new AtomicLong();
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong reigns = new AtomicLong();
    private final List<Thread> candidates = new ArrayList<>();
    private final List<Coordis> clients = new ArrayList<>();
    private FencedResource resource;
    private volatile boolean stopped;
    private long startedNanos;

    /** @param redis host:port of the Redis (or proxy) the candidates use */
    CounterCandidates(String redis, String key) {
        this(redis, key, true);
    }

    private CounterCandidates(String redis, String key, boolean termCheck) {
        this.redis = redis;
        this.key = key;
        this.termCheck = termCheck;
    }

    /** The broken variant: a leader acts while its last round made it leader, however long ago that was. */
    static CounterCandidates withoutTermCheck(String redis, String key) {
        return new CounterCandidates(redis, key, false);
    }

    @Override
    public String name() {
        return "counter election";
    }

    @Override
    public void start() {
        resource = FencedResource.start();
        for (String id : List.of("k1", "k2")) {
            Coordis c = TestClients.builder().url("redis://" + redis).commandTimeout(Duration.ofMillis(500)).connect();
            clients.add(c);
            CounterElection election = c.counterElection(key, TERM);
            Thread t = new Thread(() -> campaign(id, election), "soak-counter-" + id);
            t.setDaemon(true);
            t.start();
            candidates.add(t);
        }
        startedNanos = System.nanoTime();
    }

    private void campaign(String id, CounterElection election) {
        long inside = -1;
        long nextRound = 0;
        boolean won = false;
        try {
            while (!stopped) {
                if (System.nanoTime() >= nextRound) {
                    nextRound = System.nanoTime() + ROUND_EVERY_MS * 1_000_000;
                    try {
                        won = election.round();
                        rounds.incrementAndGet();
                    } catch (CoordisException e) {
                        errors.incrementAndGet(); // isLeader() turns false once the term runs out unrenewed
                    }
                }
                if (inside >= 0 && id.equals(stallNext)) {
                    stallNext = null;
                    stalls.incrementAndGet();
                    Thread.sleep(STALL.toMillis()); // paused between its round and its next act
                }
                if (termCheck ? election.isLeader() : won) {
                    leading = id;
                    if (inside < 0) {
                        inside = numbers.incrementAndGet();
                        reigns.incrementAndGet();
                        resource.enter(id, inside);
                    }
                    resource.write(id, inside);
                } else if (inside >= 0) {
                    resource.exit(id, inside);
                    inside = -1;
                }
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (inside >= 0) {
                resource.exit(id, inside);
            }
            election.stepDown();
        }
    }

    /** Every 5-10 s, the leader's thread stalls for the term + 1.5 s before it next decides whether to act. */
    @Override
    public void disturb(long end, Random random) throws InterruptedException {
        while (!stopped) {
            Thread.sleep(5000 + random.nextInt(5000));
            if (System.nanoTime() >= end) {
                return;
            }
            stallNext = leading;
        }
    }

    @Override
    public String progress() {
        return "reigns " + reigns.get() + ", overlaps " + resource.report().overlaps();
    }

    @Override
    public void finish(SoakReport report, List<Nemesis.Event> faults) throws Exception {
        boolean resumed = Recovery.resumedAfterLast(resource, faults, startedNanos, RESUME_BOUND);
        Samples recovery = Recovery.afterFaults(resource, faults);
        stopped = true;
        for (Thread t : candidates) {
            t.join(10_000);
        }
        FencedResource.Report r = resource.report();
        report.figure("rounds / failed by Redis", SoakReport.count(rounds.get()) + " / " + errors.get())
                .figure("leaderships (entered the resource)", SoakReport.count(r.totalEnters()))
                .figure("leaders stalled for the term + 1.5 s", stalls.get())
                .figure("a leader entered while a stalled one was inside (overlaps)", r.overlaps())
                .figure("leader writes accepted / refused as stale (a leader acting after the next one began)",
                        SoakReport.count(r.accepted()) + " / " + r.staleRejections())
                .figure("healed fault to next accepted leader write", recovery.summary());
        report.check("0 writes refused as stale: no leader acted after the next one began"
                        + (termCheck ? "" : " (broken variant without the term check)"), r.staleRejections() == 0)
                .check("the fenced resource saw no malformed or unpaired requests", r.protocolErrors() == 0)
                .check("the counter election made progress, also within " + RESUME_BOUND.toSeconds()
                        + " s of the last fault being healed", r.totalEnters() > 0 && resumed);
        if (!r.notes().isEmpty()) {
            report.note("First anomalies: " + r.notes().stream().limit(3).toList());
        }
    }

    @Override
    public void close() {
        stopped = true;
        candidates.forEach(Thread::interrupt);
        clients.forEach(Coordis::close);
        if (resource != null) {
            resource.close();
        }
    }
}
