package io.coordis.election;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.fault.FencedResource;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Candidate child JVMs of one test, by id; closing kills those still running. */
final class Candidates implements AutoCloseable {
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final FencedResource referee;
    private final String mode;
    private final String name;
    private final Duration ttl;
    private final Path histories;
    private final Map<String, ChildJvm> running = new LinkedHashMap<>();
    private int started;

    Candidates(FencedResource referee, String mode, String name, Duration ttl) {
        this(referee, mode, name, ttl, null);
    }

    /** Candidates that write their histories to {@code histories/<id>.jsonl} (lease mode). */
    Candidates(FencedResource referee, String mode, String name, Duration ttl, Path histories) {
        this.referee = referee;
        this.mode = mode;
        this.name = name;
        this.ttl = ttl;
        this.histories = histories;
    }

    /** Starts candidate {@code c<n>} connecting to {@code uri}; returns once it is campaigning. */
    String start(String uri) throws InterruptedException {
        String id = "c" + (++started);
        List<String> args = new java.util.ArrayList<>(
                List.of(mode, referee.address(), uri, name, id, Long.toString(ttl.toMillis())));
        if (histories != null) {
            args.add(histories.resolve(id + ".jsonl").toString());
        }
        ChildJvm jvm = ChildJvm.start(id, CandidateProcess.class, args);
        running.put(id, jvm);
        jvm.awaitLine(mode.equals("lease") ? "CAMPAIGNING" : "ROUND", START_TIMEOUT);
        return id;
    }

    ChildJvm get(String id) {
        ChildJvm jvm = running.get(id);
        if (jvm == null) {
            throw new AssertionError("no running candidate " + id);
        }
        return jvm;
    }

    /** SIGKILL, waiting until the process is gone. */
    void kill(String id) {
        running.remove(id).close();
    }

    String describe() {
        StringBuilder b = new StringBuilder();
        running.values().forEach(j -> b.append(j.describe()).append('\n'));
        return b.toString();
    }

    @Override
    public void close() {
        running.values().forEach(ChildJvm::close);
        running.clear();
    }
}
