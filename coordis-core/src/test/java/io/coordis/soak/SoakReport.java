package io.coordis.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One soak run's section of the report: figures, the properties it asserts with their outcome, and notes.
 * {@link #write()} appends the section (Markdown) to {@link SoakSettings#reportFile()} and prints it; a run
 * writes its section before it asserts, so a failing run's figures are in the report too. Not thread-safe.
 */
final class SoakReport {
    private final String run;
    private final long seed;
    private final Instant started = Instant.now();
    private final List<String[]> figures = new ArrayList<>();
    private final List<String> checks = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> tables = new ArrayList<>();
    private final List<String> failedChecks = new ArrayList<>();
    private String part = "";

    SoakReport(String run, long seed) {
        this.run = run;
        this.seed = seed;
    }

    /**
     * Names the workload whose figures, checks, notes and tables follow, put in front of each (empty: none), so
     * that several workloads of one run share one section.
     */
    SoakReport part(String name) {
        part = name.isEmpty() ? "" : name + ": ";
        return this;
    }

    /** A figure of the run (reported, asserted or not). */
    SoakReport figure(String name, Object value) {
        figures.add(new String[] {part + name, String.valueOf(value)});
        return this;
    }

    /** A property the run asserts, and whether it held; the test asserts it again after {@link #write()}. */
    SoakReport check(String property, boolean held) {
        checks.add((held ? "held: " : "FAILED: ") + part + property);
        if (!held) {
            failedChecks.add(part + property);
        }
        return this;
    }

    /** The properties that did not hold, so far. */
    List<String> failedChecks() {
        return List.copyOf(failedChecks);
    }

    /** A line of explanation under the figures. */
    SoakReport note(String text) {
        notes.add(part + text);
        return this;
    }

    /** A Markdown table (header row first), e.g. one row per failover. */
    SoakReport table(List<List<String>> rows) {
        StringBuilder b = new StringBuilder(part.isEmpty() ? "" : part + "\n\n");
        for (int i = 0; i < rows.size(); i++) {
            b.append("| ").append(String.join(" | ", rows.get(i))).append(" |\n");
            if (i == 0) {
                b.append("|").append("---|".repeat(rows.get(0).size())).append('\n');
            }
        }
        tables.add(b.toString());
        return this;
    }

    /**
     * For a failed run (or when {@code anyway}): copies the files of {@code dir} (histories) and writes {@code lines}
     * (fault times and the like) to {@code soak-evidence/<run>-<seed>[-<workload>]/} beside the report, and names that
     * folder in a note.
     */
    SoakReport keepEvidence(Path dir, List<String> lines, boolean anyway) {
        if (failedChecks.isEmpty() && !anyway) {
            return this;
        }
        Path report = SoakSettings.reportFile().toAbsolutePath();
        String workload = part.isEmpty() ? "" : "-" + part.replace(": ", "").replace(' ', '-');
        Path into = report.getParent().resolve("soak-evidence").resolve(run.split(":")[0] + "-" + seed + workload);
        try {
            Files.createDirectories(into);
            try (var files = Files.list(dir)) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    Files.copy(f, into.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.write(into.resolve("run.txt"), lines, StandardCharsets.UTF_8);
            note("Evidence (histories, fault times): " + into);
        } catch (IOException e) {
            note("Evidence could not be kept: " + e);
        }
        return this;
    }

    /** Appends the section to the report file (creating it with a title) and prints it. */
    String write() {
        StringBuilder b = new StringBuilder();
        b.append("## ").append(run).append(", ").append(started.truncatedTo(ChronoUnit.SECONDS)).append("\n\n");
        b.append("Seed ").append(seed).append(" (replay: `-Dsoak.seed=").append(seed).append("`); ")
                .append(failedChecks.isEmpty() ? "passed" : "**FAILED**").append(", ")
                .append(duration(Duration.between(started, Instant.now()))).append(" in all.\n\n");
        b.append("| figure | value |\n|---|---|\n");
        for (String[] f : figures) {
            b.append("| ").append(f[0]).append(" | ").append(f[1].replace("|", "/")).append(" |\n");
        }
        b.append('\n');
        for (String t : tables) {
            b.append(t).append('\n');
        }
        b.append("Asserted:\n\n");
        checks.forEach(c -> b.append("- ").append(c).append('\n'));
        if (!notes.isEmpty()) {
            b.append('\n');
            notes.forEach(n -> b.append(n).append("\n\n"));
        }
        b.append('\n');
        String section = b.toString();
        Path file = SoakSettings.reportFile();
        try {
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            String text = Files.exists(file) ? section : "# Coordis soak report\n\n" + section;
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to the soak report " + file, e);
        }
        System.out.println("---- soak report, appended to " + file.toAbsolutePath() + " ----\n" + section);
        return section;
    }

    static String duration(Duration d) {
        long s = d.toSeconds();
        return s >= 60 ? (s / 60) + " min " + (s % 60) + " s" : s + " s";
    }

    /** {@code n} per {@code per} of {@code of}, e.g. 3 per 10,000 of 52,000: {@code 0.58}. */
    static String rate(long n, long of, long per) {
        if (of == 0) {
            return "n/a (none)";
        }
        return String.format(Locale.ROOT, "%.2f", n * (double) per / of);
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }
}
