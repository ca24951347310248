package io.coordis.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The measuring child JVM: one implementation of one scenario. Started by {@link Bench}; talks to it over
 * stdout and stdin so that the runner can take Redis command counts around the measured window alone:
 * <ol>
 *   <li>sets up, runs the warm-up (discarded) and then keeps warming up until the JIT compiler is quiet
 *       (see {@link #settle}), prints {@code READY}, waits for a {@code GO} line;</li>
 *   <li>measures, stops sending commands, prints {@code STOPPED}, waits for a {@code CONTINUE} line;</li>
 *   <li>prints {@code RESULT <json>} (the workload's figures plus {@code cpuUsPerOp}, the process CPU time
 *       over the measured window per operation, {@code allocBytesPerOp}, the heap bytes its threads allocated in
 *       that window per operation ({@link Allocation}), {@code warmupSeconds} and {@code jitMsInWindow}), closes its
 *       clients and exits 0.</li>
 * </ol>
 * On failure it prints {@code FAILED <reason>} and exits 1. It exits when its stdin closes.
 *
 * <p>Arguments: {@code scenarioId implementation warmupMillis measureMillis uri...}
 */
public final class Child {
    private Child() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 5) {
            System.out.println("FAILED usage: Child scenarioId implementation warmupMillis measureMillis uri...");
            System.exit(2);
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try {
            Scenario scenario = Scenarios.byId(args[0])
                    .orElseThrow(() -> new IllegalArgumentException("no scenario named '" + args[0] + "'"));
            Duration warmup = Duration.ofMillis(Long.parseLong(args[2]));
            Duration measure = Duration.ofMillis(Long.parseLong(args[3]));
            List<String> uris = List.of(args).subList(4, args.length);
            try (Workload workload = scenario.factory().create(args[1], uris)) {
                CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
                long started = System.nanoTime();
                workload.run(warmup);
                settle(workload, jit);
                double warmedSeconds = (System.nanoTime() - started) / 1e9;
                System.gc();
                System.out.println("READY");
                await(in, "GO");
                com.sun.management.OperatingSystemMXBean os =
                        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
                long cpu0 = os.getProcessCpuTime();
                long jit0 = jit.getTotalCompilationTime();
                long heap0 = Allocation.allocatedBytes();
                Map<String, Double> figures = workload.run(measure);
                long cpu1 = os.getProcessCpuTime();
                long heap1 = Allocation.allocatedBytes();
                long jit1 = jit.getTotalCompilationTime();
                System.out.println("STOPPED");
                await(in, "CONTINUE");
                Map<String, Object> result = new LinkedHashMap<>();
                result.put("scenario", scenario.id());
                result.put("implementation", args[1]);
                result.putAll(figures);
                double ops = figures.getOrDefault("ops", 0.0);
                result.put("cpuUsPerOp", ops > 0 ? (cpu1 - cpu0) / 1e3 / ops : Double.NaN);
                result.put("allocBytesPerOp", ops > 0 ? (heap1 - heap0) / ops : Double.NaN);
                result.put("warmupSeconds", warmedSeconds);
                result.put("jitMsInWindow", (double) (jit1 - jit0));
                System.out.println("RESULT " + ResultLine.write(result));
            }
            System.exit(0);
        } catch (Throwable e) {
            String message = String.valueOf(e).replace('\n', ' ');
            System.out.println("FAILED " + message);
            e.printStackTrace();
            System.exit(1);
        }
    }

    /** Longest extra warm-up {@link #settle} adds after the asked-for one. */
    static final Duration SETTLE_LIMIT = Duration.ofSeconds(60);
    /** JIT compile time per second of warm-up below which the JIT counts as quiet. */
    static final long QUIET_JIT_MS_PER_SECOND = 20;
    /** Quiet seconds in a row that end the warm-up. */
    static final int QUIET_SECONDS = 2;

    /**
     * Keeps warming up, a second at a time, until the JIT compiled less than {@link #QUIET_JIT_MS_PER_SECOND} in
     * each of {@link #QUIET_SECONDS} seconds in a row, for at most {@link #SETTLE_LIMIT}. A fixed warm-up of a few
     * seconds leaves C2 compiling through the measured window; on two cores that compile time is taken from the
     * workload and is counted in its client CPU, and more so for an implementation with more code on its path.
     * Waiting for quiet measures each implementation as a long-running service runs it.
     */
    private static void settle(Workload workload, CompilationMXBean jit) throws Exception {
        long deadline = System.nanoTime() + SETTLE_LIMIT.toNanos();
        int quiet = 0;
        while (quiet < QUIET_SECONDS && System.nanoTime() < deadline) {
            long before = jit.getTotalCompilationTime();
            workload.run(Duration.ofSeconds(1));
            quiet = jit.getTotalCompilationTime() - before < QUIET_JIT_MS_PER_SECOND ? quiet + 1 : 0;
        }
    }

    private static void await(BufferedReader in, String word) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.trim().equals(word)) {
                return;
            }
        }
        throw new IllegalStateException("the runner went away before sending " + word);
    }
}
