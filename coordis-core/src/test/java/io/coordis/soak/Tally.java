package io.coordis.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Counts the message ids {@link io.coordis.queue.CrashConsumer}s report processed ({@code P id id ...} lines
 * in their report files), reading only what each file gained since the last {@link #update} and only up to
 * its last complete line (a line cut by SIGKILL belongs to a batch that was never acked). Ids are
 * {@code 0..messages-1}; anything else is a phantom. {@code O ...} lines (an ack answered other than ACKED)
 * are counted. Not thread-safe.
 */
final class Tally {
    private final int[] counts;
    private final Map<Path, Long> offsets = new HashMap<>();
    private int distinct;
    long duplicates;
    long phantoms;
    long notAcked;

    Tally(int messages) {
        counts = new int[messages];
    }

    /** Reads what the files gained; answers how many distinct ids were seen so far. */
    int update(List<Path> files) {
        for (Path f : files) {
            readNew(f);
        }
        return distinct;
    }

    /** Ids never seen. */
    long missing() {
        return counts.length - (long) distinct;
    }

    /** Ids below {@code pushed} never seen and not in {@code stored} (still in Redis): lost. */
    long missingAmong(int pushed, java.util.Set<Integer> stored) {
        long lost = 0;
        for (int i = 0; i < Math.min(pushed, counts.length); i++) {
            if (counts[i] == 0 && !stored.contains(i)) {
                lost++;
            }
        }
        return lost;
    }

    List<Integer> firstMissingAmong(int pushed, java.util.Set<Integer> stored, int max) {
        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < Math.min(pushed, counts.length) && ids.size() < max; i++) {
            if (counts[i] == 0 && !stored.contains(i)) {
                ids.add(i);
            }
        }
        return ids;
    }

    private void readNew(Path file) {
        if (!Files.exists(file)) {
            return;
        }
        long from = offsets.getOrDefault(file, 0L);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            if (size <= from) {
                return;
            }
            ByteBuffer buf = ByteBuffer.allocate((int) (size - from));
            while (buf.hasRemaining() && ch.read(buf, from + buf.position()) >= 0) {
                // read it all
            }
            byte[] bytes = buf.array();
            int end = bytes.length;
            while (end > 0 && bytes[end - 1] != '\n') {
                end--;
            }
            int start = 0;
            for (int i = 0; i < end; i++) {
                if (bytes[i] == '\n') {
                    line(bytes, start, i);
                    start = i + 1;
                }
            }
            offsets.put(file, from + end);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read consumer report " + file, e);
        }
    }

    private void line(byte[] b, int from, int to) {
        if (to - from >= 2 && b[from] == 'O' && b[from + 1] == ' ') {
            notAcked++;
            return;
        }
        if (to - from < 2 || b[from] != 'P' || b[from + 1] != ' ') {
            return;
        }
        long id = -1;
        for (int i = from + 2; i <= to; i++) {
            byte c = i < to ? b[i] : (byte) ' ';
            if (c >= '0' && c <= '9') {
                id = (id < 0 ? 0 : id * 10) + (c - '0');
            } else if (id >= 0) {
                count(id);
                id = -1;
            }
        }
    }

    private void count(long id) {
        if (id >= counts.length) {
            phantoms++;
            return;
        }
        int n = ++counts[(int) id];
        if (n == 1) {
            distinct++;
        } else {
            duplicates++;
        }
    }
}
