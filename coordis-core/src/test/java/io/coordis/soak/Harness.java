package io.coordis.soak;

import io.coordis.testkit.fault.Nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one run loop of the soak runs: starts its workloads, then its nemeses and each workload's own faults at once,
 * prints progress every minute, stops once the duration has passed or every workload is done, has each workload
 * judge itself into one report section, writes it, and fails if any check failed. The seed drives every nemesis
 * (the caller builds them with it) and each workload's own faults ({@code seed + 1 + i} for the i-th). Not
 * thread-safe; one run per instance.
 */
final class Harness {
    private static final Duration NEMESIS_OVERRUN = Duration.ofMinutes(2);
    private static final Duration DISTURB_OVERRUN = Duration.ofMinutes(3);
    private static final Duration UNTIL_DONE = Duration.ofDays(1);

    private final String run;
    private final long seed;
    private final SoakReport report;
    private final List<Workload> workloads = new ArrayList<>();
    private final List<Function<Supplier<List<Long>>, Nemesis>> nemeses = new ArrayList<>();

    Harness(String run, String title, long seed) {
        this.run = run;
        this.seed = seed;
        this.report = new SoakReport(run + ": " + title, seed);
    }

    Harness add(Workload workload) {
        workloads.add(workload);
        return this;
    }

    /**
     * A nemesis for the run, built once the workloads have started: {@code build} is given the supplier of the
     * client pids the workloads offer for SIGSTOP.
     */
    Harness nemesis(Function<Supplier<List<Long>>, Nemesis> build) {
        nemeses.add(build);
        return this;
    }

    SoakReport report() {
        return report;
    }

    /** Runs until every part is done (a message count, a number of failovers) and asserts that every check held. */
    void runUntilDone() throws Exception {
        run(UNTIL_DONE);
    }

    /** Runs every part for {@code duration} (or until each is done) and asserts that every check held. */
    void run(Duration duration) throws Exception {
        List<Nemesis> running = new ArrayList<>();
        List<Workload> started = new ArrayList<>();
        try {
            for (Workload w : workloads) {
                started.add(w);
                w.start();
            }
            Supplier<List<Long>> pids = () -> workloads.stream().flatMap(w -> w.clientPids().stream()).toList();
            long begin = System.nanoTime();
            long end = begin + duration.toNanos();
            for (Function<Supplier<List<Long>>, Nemesis> build : nemeses) {
                Nemesis n = build.apply(pids);
                running.add(n);
                n.start(duration);
            }
            Map<String, Throwable> disturbFailures = new ConcurrentHashMap<>();
            List<Thread> disturbers = new ArrayList<>();
            for (int i = 0; i < workloads.size(); i++) {
                Workload w = workloads.get(i);
                Random random = new Random(seed + 1 + i);
                Thread t = new Thread(() -> {
                    try {
                        w.disturb(end, random);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (Throwable e) {
                        disturbFailures.put(w.name(), e);
                        e.printStackTrace();
                    }
                }, "soak-" + w.name());
                t.setDaemon(true);
                t.start();
                disturbers.add(t);
            }
            long nextProgress = begin + TimeUnit.MINUTES.toNanos(1);
            while (System.nanoTime() < end && !workloads.stream().allMatch(Workload::done)) {
                Thread.sleep(Math.max(1, Math.min(500, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
                if (System.nanoTime() >= nextProgress) {
                    nextProgress += TimeUnit.MINUTES.toNanos(1);
                    System.out.println(progress(begin, duration, running));
                }
            }
            List<Nemesis.Event> faults = new ArrayList<>();
            for (Nemesis n : running) {
                boolean ended = n.await(NEMESIS_OVERRUN);
                report.check("the nemesis (seed " + n.seed() + ") ended within its duration + "
                        + NEMESIS_OVERRUN.toMinutes() + " min, without an error of its own", ended && n.failure().isEmpty());
                n.failure().ifPresent(f -> report.note("Nemesis failure: " + f));
                faults.addAll(n.events());
            }
            faults.sort((a, b) -> Long.compare(a.startNanos(), b.startNanos()));
            for (Thread t : disturbers) {
                t.join(DISTURB_OVERRUN.toMillis());
                if (t.isAlive()) {
                    report.check(t.getName() + "'s own faults ended within " + DISTURB_OVERRUN.toMinutes()
                            + " min of the run's end", false);
                    t.interrupt();
                    t.join(10_000);
                }
            }
            Duration ran = Duration.ofNanos(System.nanoTime() - begin);
            Map<String, Long> byKind = faults.stream().collect(Collectors.groupingBy(e -> e.kind().toString(),
                    TreeMap::new, Collectors.counting()));
            report.figure("duration", SoakReport.duration(ran) + (duration.equals(UNTIL_DONE) ? ""
                            : " (asked: " + SoakReport.duration(duration) + ")"))
                    .figure("faults injected by the nemeses", faults.size() + ": " + byKind);
            boolean parts = workloads.size() > 1;
            for (Workload w : workloads) {
                report.part(parts ? w.name() : "");
                try {
                    w.finish(report, Collections.unmodifiableList(faults));
                } catch (Throwable e) {
                    report.check("judged without an error", false).note(w.name() + " failed while judged: " + e);
                    e.printStackTrace();
                }
                Throwable f = disturbFailures.get(w.name());
                if (f != null) {
                    report.check("its own faults ran without an error", false).note(w.name() + "'s faults failed: " + f);
                }
            }
            report.part("");
            String section = report.write();
            assertThat(report.failedChecks()).as(run + " (seed " + seed + "):\n" + section).isEmpty();
        } finally {
            for (Nemesis n : running) {
                n.close();
            }
            for (int i = started.size() - 1; i >= 0; i--) {
                try {
                    started.get(i).close();
                } catch (Exception e) {
                    System.out.println(run + ": closing " + started.get(i).name() + " failed: " + e);
                }
            }
        }
    }

    private String progress(long begin, Duration duration, List<Nemesis> running) {
        StringBuilder b = new StringBuilder(run).append(": ")
                .append(SoakReport.duration(Duration.ofNanos(System.nanoTime() - begin))).append(" of ")
                .append(SoakReport.duration(duration)).append(", ")
                .append(running.stream().mapToInt(n -> n.events().size()).sum()).append(" faults");
        for (Workload w : workloads) {
            String p = w.progress();
            if (!p.isEmpty()) {
                b.append("; ").append(w.name()).append(": ").append(p);
            }
        }
        return b.toString();
    }
}
