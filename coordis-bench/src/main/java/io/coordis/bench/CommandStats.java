package io.coordis.bench;

import io.coordis.testkit.RedisServer;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the servers did: commands from {@code INFO commandstats} (which counts commands run inside scripts
 * as well as the script call; the runner's own {@code INFO} calls are left out) and CPU time from
 * {@code INFO cpu} (the main thread's user + system time).
 */
final class CommandStats {
    private CommandStats() {
    }

    /** Calls per command and CPU seconds, each summed over the servers at one moment. */
    record Snapshot(Map<String, Long> calls, double cpuSeconds) {
    }

    /** Calls per command and CPU seconds, summed over {@code servers}. */
    static Snapshot snapshot(List<RedisServer> servers) {
        Map<String, Long> calls = new TreeMap<>();
        double cpu = 0;
        for (RedisServer s : servers) {
            parse(s.info("commandstats")).forEach((cmd, n) -> calls.merge(cmd, n, Long::sum));
            cpu += cpuSeconds(s.info("cpu"));
        }
        return new Snapshot(calls, cpu);
    }

    /** {@code used_cpu_user + used_cpu_sys} of {@code INFO cpu}, in seconds; NaN when absent. */
    static double cpuSeconds(Map<String, String> info) {
        String user = info.get("used_cpu_user");
        String sys = info.get("used_cpu_sys");
        return user == null || sys == null ? Double.NaN : Double.parseDouble(user) + Double.parseDouble(sys);
    }

    /** {@code cmdstat_set -> "calls=3,usec=..."} into {@code set -> 3}, without {@code info}. */
    static Map<String, Long> parse(Map<String, String> info) {
        Map<String, Long> calls = new TreeMap<>();
        for (Map.Entry<String, String> e : info.entrySet()) {
            if (!e.getKey().startsWith("cmdstat_")) {
                continue;
            }
            String cmd = e.getKey().substring("cmdstat_".length());
            if (cmd.equals("info")) {
                continue;
            }
            String v = e.getValue();
            int at = v.indexOf("calls=");
            if (at < 0) {
                continue;
            }
            int end = v.indexOf(',', at);
            calls.put(cmd, Long.parseLong(v.substring(at + 6, end < 0 ? v.length() : end)));
        }
        return calls;
    }

    /** {@code after − before}, per command, zero and negative differences dropped. */
    static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> d = new TreeMap<>();
        after.forEach((cmd, n) -> {
            long diff = n - before.getOrDefault(cmd, 0L);
            if (diff > 0) {
                d.put(cmd, diff);
            }
        });
        return d;
    }

    /** {@code "evalsha 1.00, set 1.00"}: each command's calls ÷ {@code ops}, largest first. */
    static String perOp(Map<String, Long> delta, double ops) {
        StringBuilder sb = new StringBuilder();
        delta.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .forEach(e -> sb.append(sb.length() == 0 ? "" : ", ").append(e.getKey()).append(' ')
                        .append(String.format(Locale.ROOT, "%.2f", e.getValue() / ops)));
        return sb.toString();
    }
}
