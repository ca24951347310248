package io.coordis.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code redis-benchmark} (from redis-tools) against the first server: the round-trip floor (one
 * connection, no pipelining: what one blocking client can get at best) and the server's ceiling (50
 * connections, 16 commands pipelined), for {@code PING} and {@code SET}.
 */
final class RedisBenchmark {
    /** One configuration: its label and its redis-benchmark arguments. */
    record Setup(String label, List<String> args) {
    }

    static final List<Setup> SETUPS = List.of(
            new Setup("floor: 1 connection, no pipelining", List.of("-c", "1", "-n", "20000")),
            new Setup("ceiling: 50 connections, pipeline 16", List.of("-c", "50", "-P", "16", "-n", "400000")));

    private RedisBenchmark() {
    }

    /** The binary on {@code PATH}, if any. */
    static Optional<Path> binary() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path p = Path.of(dir, "redis-benchmark");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Runs one setup; returns requests per second by test name ({@code PING_INLINE}, {@code PING_MBULK}, {@code SET}). */
    static Map<String, Double> run(Path binary, int port, Setup setup) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(binary.toString(), "-h", "127.0.0.1", "-p", Integer.toString(port),
                "-t", "ping,set", "--csv"));
        command.addAll(setup.args());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("redis-benchmark failed: " + out.strip());
        }
        return parseCsv(out);
    }

    /** {@code "SET","81234.50",...} lines into {@code SET -> 81234.5}; the header and other lines are skipped. */
    static Map<String, Double> parseCsv(String csv) {
        Map<String, Double> rps = new LinkedHashMap<>();
        for (String line : csv.split("\\R")) {
            String[] cells = line.split(",");
            if (cells.length < 2) {
                continue;
            }
            String test = cells[0].replace("\"", "").trim();
            try {
                rps.put(test, Double.parseDouble(cells[1].replace("\"", "").trim()));
            } catch (NumberFormatException notData) {
                // the header line, or progress output
            }
        }
        return rps;
    }
}
