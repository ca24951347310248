package io.coordis.soak;

import io.coordis.safety.FenceWorker;
import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.fault.Nemesis;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Lock holders under faults: {@link FenceWorker} JVMs (two, four threads each) take one lock (TTL 1 s, wait 2 s),
 * enter a {@link FencedResource} and write with their fencing numbers. One Redis address gives the single-node
 * lock, several comma-separated ones Redlock, a {@code redis-cluster://} URL the lock on Redis Cluster. The JVMs
 * may be SIGSTOPped by the nemesis (a holder paused past its lease).
 *
 * <p>Checked: 0 fenced violations, no malformed requests, progress (also within 10 s of the last fault, when
 * {@code resumeChecked}). Reported: acquisitions, unfenced overlaps per 10,000 (expected: paused holders), stale
 * writes refused, acquire latency, late acquire calls, recovery from each healed fault.
 */
final class FencedLocks implements Workload {
    static final Duration TTL = Duration.ofSeconds(1);
    static final Duration WAIT = Duration.ofSeconds(2);
    private static final Duration RESUME_BOUND = Duration.ofSeconds(10);
    private static final Pattern STATS = Pattern.compile("STATS cycles=(\\d+) errors=(\\d+) late=(\\d+) maxLateMs=(-?\\d+)");

    private final String name;
    private final String redis;
    private final String lock;
    private final Path dir;
    private final boolean violationsChecked;
    private final String mode;
    private final List<ChildJvm> workers = new ArrayList<>();
    private FencedResource resource;
    private long startedNanos;

    /**
     * @param redis             host:port, several joined by commas (Redlock), or a URL
     * @param violationsChecked false where the deployment may lose a grant (a failover): violations reported only
     */
    FencedLocks(String name, String redis, String lock, Path dir, boolean violationsChecked) {
        this(name, redis, lock, dir, violationsChecked, "coordis");
    }

    /** @param mode a {@link FenceWorker} mode: {@code coordis}, or a broken variant such as {@code no-fence} */
    FencedLocks(String name, String redis, String lock, Path dir, boolean violationsChecked, String mode) {
        this.mode = mode;
        this.name = name;
        this.redis = redis;
        this.lock = lock;
        this.dir = dir;
        this.violationsChecked = violationsChecked;
    }

    @Override
    public String name() {
        return name;
    }

    FencedResource resource() {
        return resource;
    }

    @Override
    public void start() throws Exception {
        Files.createDirectories(dir);
        resource = FencedResource.start();
        for (String worker : List.of("a", "b")) {
            workers.add(ChildJvm.start(name + "-" + worker, FenceWorker.class, List.of(redis, resource.address(), lock,
                    mode, "4", Long.toString(TTL.toMillis()), Long.toString(WAIT.toMillis()), name + "-" + worker,
                    dir.resolve(worker + ".latencies").toString())));
        }
        for (ChildJvm w : workers) {
            w.awaitLine("READY", Duration.ofSeconds(60));
        }
        startedNanos = System.nanoTime();
    }

    @Override
    public List<Long> clientPids() {
        return workers.stream().filter(ChildJvm::isAlive).map(ChildJvm::pid).toList();
    }

    @Override
    public String progress() {
        FencedResource.Report r = resource.report();
        return "writes " + r.accepted() + ", violations " + r.violations();
    }

    @Override
    public void finish(SoakReport report, List<Nemesis.Event> faults) throws Exception {
        boolean resumed = Recovery.resumedAfterLast(resource, faults, startedNanos, RESUME_BOUND);
        Samples recovery = Recovery.afterFaults(resource, faults);
        long cycles = 0;
        long errors = 0;
        long late = 0;
        long maxLate = 0;
        for (ChildJvm w : workers) {
            w.closeInput();
            Matcher m = STATS.matcher(w.awaitLine("STATS", Duration.ofSeconds(30)));
            assertThat(m.find()).as(w.describe()).isTrue();
            cycles += Long.parseLong(m.group(1));
            errors += Long.parseLong(m.group(2));
            late += Long.parseLong(m.group(3));
            maxLate = Math.max(maxLate, Long.parseLong(m.group(4)));
        }
        Samples acquire = new Samples();
        for (String worker : List.of("a", "b")) {
            readLatencies(dir.resolve(worker + ".latencies"), acquire);
        }
        FencedResource.Report l = resource.report();
        report.figure("lock acquisitions (entered the resource)", SoakReport.count(l.totalEnters()))
                .figure("lock cycles completed / calls failed by Redis and retried", SoakReport.count(cycles) + " / "
                        + SoakReport.count(errors))
                .figure("fenced violations", l.violations())
                .figure("unfenced overlaps", l.overlaps() + " (" + SoakReport.rate(l.overlaps(), l.totalEnters(), 10_000)
                        + " per 10k acquisitions)")
                .figure("stale writes refused by the fence", SoakReport.count(l.staleRejections()))
                .figure("acquire latency (successful calls)", acquire.summary())
                .figure("acquire calls returning > 1 s after their wait", late + " (latest " + maxLate + " ms over)")
                .figure("healed fault to next accepted write", recovery.summary());
        if (violationsChecked) {
            report.check("0 fenced violations among lock holders", l.violations() == 0);
        }
        report.check("the fenced resource saw no malformed or unpaired requests", l.protocolErrors() == 0)
                .check("the lock made progress, also within " + RESUME_BOUND.toSeconds() + " s of the last fault being"
                        + " healed", cycles > 0 && resumed);
        if (!l.notes().isEmpty()) {
            report.note("First anomalies: " + l.notes().stream().limit(3).toList());
        }
    }

    @Override
    public void close() {
        workers.forEach(ChildJvm::close);
        if (resource != null) {
            resource.close();
        }
    }

    private static void readLatencies(Path file, Samples into) throws IOException {
        if (!Files.exists(file)) {
            return;
        }
        try (DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(Files.newInputStream(file)))) {
            while (true) {
                into.add(in.readLong());
            }
        } catch (EOFException end) {
            // all read
        }
    }
}
