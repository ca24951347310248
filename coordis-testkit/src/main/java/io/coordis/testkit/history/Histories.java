package io.coordis.testkit.history;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/** Reads the history files of a run into one list ordered by time. */
public final class Histories {
    private Histories() {
    }

    /**
     * Every {@code *.jsonl} file in {@code dir}, merged and ordered by time (ties keep file order). A torn
     * last line (a process killed while writing it) is skipped; a bad line anywhere else is an error.
     *
     * @param dir the directory of the history files
     * @return the operations, oldest first
     */
    public static List<Op> read(Path dir) {
        List<Op> ops = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(p -> p.getFileName().toString().endsWith(".jsonl")).sorted().toList()) {
                ops.addAll(readFile(file));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read histories in " + dir, e);
        }
        ops.sort(Comparator.comparingLong(Op::micros));
        return ops;
    }

    static List<Op> readFile(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Op> ops = new ArrayList<>(lines.size());
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            try {
                ops.add(HistoryLine.read(line));
            } catch (RuntimeException e) {
                if (i == lines.size() - 1) {
                    continue; // torn by SIGKILL mid-write
                }
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + e.getMessage(), e);
            }
        }
        return ops;
    }
}
