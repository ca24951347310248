package io.coordis.soak;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.fault.Nemesis;
import io.coordis.testkit.history.Histories;
import io.coordis.testkit.history.LeaderChecker;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lease election under faults: two {@link SoakCandidate} JVMs (TTL 1 s) campaign, write to a fenced resource
 * with their terms while leading, and record their campaigns as histories.
 *
 * <p>Checked: 0 fenced violations among leaders, one leader per term and terms rising in real-time order
 * ({@link LeaderChecker}), no malformed requests, progress (also within 10 s of the last fault). Reported:
 * elections, overlapping leaders (paused ones), writes accepted and refused as stale, recovery.
 */
final class LeaseCandidates implements Workload {
    private static final Duration TTL = Duration.ofSeconds(1);
    private static final Duration RESUME_BOUND = Duration.ofSeconds(10);
    private static final Pattern STATS = Pattern.compile("STATS elections=(\\d+) errors=(\\d+)");

    private final String redis;
    private final String election;
    private final Path dir;
    private final long seed;
    private final List<ChildJvm> candidates = new ArrayList<>();
    private FencedResource resource;
    private long startedNanos;

    LeaseCandidates(String redis, String election, Path dir, long seed) {
        this.redis = redis;
        this.election = election;
        this.dir = dir;
        this.seed = seed;
    }

    @Override
    public String name() {
        return "election";
    }

    @Override
    public void start() throws Exception {
        Files.createDirectories(dir);
        resource = FencedResource.start();
        for (String id : List.of("c1", "c2")) {
            candidates.add(ChildJvm.start(id, SoakCandidate.class, List.of(redis, election, id,
                    Long.toString(TTL.toMillis()), dir.resolve(id + ".jsonl").toString(), resource.address(),
                    Long.toString(seed))));
        }
        for (ChildJvm c : candidates) {
            c.awaitLine("READY", Duration.ofSeconds(60));
        }
        startedNanos = System.nanoTime();
    }

    @Override
    public List<Long> clientPids() {
        return candidates.stream().filter(ChildJvm::isAlive).map(ChildJvm::pid).toList();
    }

    @Override
    public String progress() {
        FencedResource.Report r = resource.report();
        return "leader writes " + r.accepted() + ", violations " + r.violations();
    }

    @Override
    public void finish(SoakReport report, List<Nemesis.Event> faults) throws Exception {
        boolean resumed = Recovery.resumedAfterLast(resource, faults, startedNanos, RESUME_BOUND);
        Samples recovery = Recovery.afterFaults(resource, faults);
        long campaignErrors = 0;
        List<String> described = new ArrayList<>();
        for (ChildJvm c : candidates) {
            described.add(c.describe());
            c.closeInput();
            Matcher m = STATS.matcher(c.awaitLine("STATS", Duration.ofSeconds(30)));
            assertThat(m.find()).as(c.describe()).isTrue();
            campaignErrors += Long.parseLong(m.group(2));
        }
        FencedResource.Report e = resource.report();
        LeaderChecker.Result elections = LeaderChecker.check(Histories.read(dir));
        report.figure("elections", SoakReport.count(elections.elections()) + " (campaigns failed by Redis: "
                        + campaignErrors + ")")
                .figure("terms with two leaders / term regressions", elections.sharedTerms() + " / " + elections.regressions())
                .figure("leader fenced violations", e.violations())
                .figure("leaders overlapping (a leader entered while another was inside)", e.overlaps() + " ("
                        + SoakReport.rate(e.overlaps(), e.totalEnters(), 10_000) + " per 10k elections)")
                .figure("leader writes accepted / refused as stale", SoakReport.count(e.accepted()) + " / "
                        + SoakReport.count(e.staleRejections()))
                .figure("healed fault to next accepted leader write", recovery.summary());
        report.check("0 fenced violations among leaders (no term written by two leaders)", e.violations() == 0)
                .check("one leader per term and terms rising in real-time order (election histories)", elections.valid())
                .check("the fenced resource saw no malformed or unpaired requests", e.protocolErrors() == 0)
                .check("the election made progress, also within " + RESUME_BOUND.toSeconds() + " s of the last fault"
                        + " being healed", elections.elections() > 0 && resumed);
        if (elections.elections() == 0) {
            report.note("No election: the candidates were\n\n```\n" + String.join("\n", described) + "\n```");
        }
        if (!e.notes().isEmpty() || !elections.examples().isEmpty()) {
            report.note("First anomalies: leaders " + e.notes().stream().limit(3).toList() + "; election histories "
                    + elections.examples());
        }
    }

    @Override
    public void close() {
        candidates.forEach(ChildJvm::close);
        if (resource != null) {
            resource.close();
        }
    }
}
