package io.coordis.cli;

import io.coordis.cli.support.GlobalOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The distribution as a user gets it: {@code coordis-VERSION.tar.gz} unpacked into a fresh directory away from
 * the build, run from there against a real Redis; the class-data archive it makes for the user's own JVM on first
 * use; a cache directory that cannot be written; another JVM; the manual pages and completion scripts it carries.
 */
class DistributionIT {
    private static final Path TARBALL = Path.of(System.getProperty("coordis.cli.distribution",
            "target/coordis-unknown.tar.gz"));
    /** The line the JVM logs for a class it maps from a class-data archive instead of loading from the jar. */
    private static final String MAIN_FROM_ARCHIVE = "io.coordis.cli.Main source: shared objects file";

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @TempDir
    static Path unpacked;

    private static Path home;

    record Run(int status, String out, String err) {
    }

    @BeforeAll
    static void unpack() throws Exception {
        assertThat(TARBALL).as("built by 'mvn package'").isNotEmptyFile();
        Run tar = run(Map.of(), "tar", "xzf", TARBALL.toAbsolutePath().toString(), "-C", unpacked.toString());
        assertThat(tar.status()).as(tar.err()).isZero();
        try (Stream<Path> top = Files.list(unpacked)) {
            home = top.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(home.getFileName().toString()).startsWith("coordis-");
    }

    private static Run run(Map<String, String> env, String... command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put(GlobalOptions.KEY_PREFIX_ENV, Prefixed.prefix());
        pb.environment().remove("JAVA_OPTS");
        pb.environment().remove("COORDIS_JAR"); // the unpacked copy finds its own jar
        pb.environment().putAll(env);
        Path out = Files.createTempFile("coordis-out", ".txt");
        Path err = Files.createTempFile("coordis-err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                new java.io.File("/dev/null")));
        Process p = pb.start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("finished: " + List.of(command)).isTrue();
        Run r = new Run(p.exitValue(), Files.readString(out), Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    private static Run coordis(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> c = new ArrayList<>(List.of(home.resolve("bin/coordis").toString()));
        c.addAll(List.of(args));
        return run(env, c.toArray(String[]::new));
    }

    private static Optional<Path> archiveIn(Path cache) throws IOException {
        if (!Files.isDirectory(cache)) {
            return Optional.empty();
        }
        try (Stream<Path> files = Files.list(cache)) {
            return files.filter(f -> f.getFileName().toString().matches("coordis-\\d+\\.(jsa|aot)")).findFirst();
        }
    }

    /** Waits for the archive the first command's rehearsal records in the background; generous on a busy machine. */
    private static Path awaitArchive(Path cache) throws Exception {
        Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
        while (Instant.now().isBefore(deadline)) {
            Optional<Path> archive = archiveIn(cache);
            if (archive.isPresent()) {
                return archive.get();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no class-data archive in " + cache + " after 3 minutes");
    }

    @Test
    void theUnpackedDistributionHoldsTheCommandItsManualAndCompletionAndTheLicence() throws Exception {
        assertThat(home.resolve("bin/coordis")).isExecutable();
        assertThat(home.resolve("lib/coordis.jar")).isNotEmptyFile();
        assertThat(Files.readString(home.resolve("LICENSE"))).contains("Apache License", "Version 2.0");
        assertThat(home.resolve("NOTICE")).isNotEmptyFile();

        String lockPage = Files.readString(home.resolve("share/man/man1/coordis-lock.1"));
        assertThat(lockPage).startsWith(".TH \"COORDIS-LOCK\" 1")
                .contains(".SH NAME\ncoordis\\-lock \\- Run CMD while holding the lock NAME", ".SH SYNOPSIS",
                        ".SH OPTIONS", "\\fB\\-\\-ttl\\fR=\\fID\\fR", "\\fB\\-w\\fR, \\fB\\-\\-wait\\fR",
                        ".SH SEE ALSO\n\\fBcoordis\\fR(1)");
        assertThat(home.resolve("share/man/man1/coordis.1")).isNotEmptyFile();
        assertThat(home.resolve("share/man/man1/coordis-queue-push.1")).isNotEmptyFile();
        Run syntax = run(Map.of(), "bash", "-n", home.resolve("share/bash-completion/completions/coordis").toString());
        assertThat(syntax.status()).as(syntax.err()).isZero();
        assertThat(Files.readString(home.resolve("share/zsh/coordis.zsh"))).contains("bashcompinit",
                "_complete_coordis");

        Path zip = TARBALL.resolveSibling(TARBALL.getFileName().toString().replace(".tar.gz", ".zip"));
        Run listing = run(Map.of(), "unzip", "-Z1", zip.toAbsolutePath().toString());
        assertThat(listing.status()).as(listing.err()).isZero();
        assertThat(listing.out().lines()).contains(home.getFileName() + "/bin/coordis",
                home.getFileName() + "/lib/coordis.jar", home.getFileName() + "/share/man/man1/coordis-lock.1",
                home.getFileName() + "/LICENSE");
    }

    @Test
    void runFromAnywhereItMakesTheArchiveForTheUsersJvmOnFirstUseAndMapsItsClassesFromThenOn(@TempDir Path cache)
            throws Exception {
        Map<String, String> env = Map.of("COORDIS_CACHE_DIR", cache.toString());
        Run version = coordis(env, "--version");
        assertThat(version.status()).as(version.err()).isZero();
        assertThat(version.out()).startsWith("coordis 0.");
        assertThat(archiveIn(cache)).as("--version alone starts no rehearsal").isEmpty();

        Run first = coordis(env, "-u", redis.uri(), "lock", "dist:first", "--", "true");
        assertThat(first.status()).as(first.err()).isZero();
        assertThat(first.err()).matches("coordis: acquired 'dist:first' \\(token \\d+\\)\n");
        Path archive = awaitArchive(cache);
        assertThat(archive).isNotEmptyFile();

        Map<String, String> logged = new HashMap<>(env);
        logged.put("JAVA_OPTS", "-Xlog:class+load=info");
        Run second = coordis(logged, "-u", redis.uri(), "lock", "dist:second", "--", "true");
        assertThat(second.status()).as(second.err()).isZero();
        assertThat(second.out()).as("the command's classes come from the archive").contains(MAIN_FROM_ARCHIVE);
    }

    @Test
    void aCacheThatCannotBeWrittenOrAnArchiveTheJvmRefusesChangesNothingTheUserSees(@TempDir Path dir)
            throws Exception {
        // a directory that cannot be made, even by root: its parent is a file
        Path file = Files.writeString(dir.resolve("not-a-directory"), "x");
        Run unwritable = coordis(Map.of("COORDIS_CACHE_DIR", file.resolve("cache").toString()),
                "-u", redis.uri(), "lock", "dist:ro", "--", "true");
        assertThat(unwritable.status()).as(unwritable.err()).isZero();
        assertThat(unwritable.err()).matches("coordis: acquired 'dist:ro' \\(token \\d+\\)\n");

        // an archive damaged in the cache: the JVM refuses it, silently
        Path cache = dir.resolve("cache");
        Map<String, String> env = Map.of("COORDIS_CACHE_DIR", cache.toString());
        assertThat(coordis(env, "-u", redis.uri(), "lock", "dist:damaged", "--", "true").status()).isZero();
        Path archive = awaitArchive(cache);
        Files.write(archive, new byte[64 * 1024]);
        Run damaged = coordis(env, "-u", redis.uri(), "lock", "dist:damaged", "--", "true");
        assertThat(damaged.status()).as(damaged.err()).isZero();
        assertThat(damaged.err()).matches("coordis: acquired 'dist:damaged' \\(token \\d+\\)\n");
        assertThat(damaged.out()).isEmpty();
    }

    @Test
    void anotherJvmGetsNoArchiveFlagAndKeepsTheJdksOwnArchive(@TempDir Path cache) throws Exception {
        Optional<Path> other = otherJdk();
        org.junit.jupiter.api.Assumptions.assumeTrue(other.isPresent(),
                "a second JDK under /usr/lib/jvm (CI has two)");
        Map<String, String> env = Map.of("COORDIS_CACHE_DIR", cache.toString());
        assertThat(coordis(env, "-u", redis.uri(), "lock", "dist:jvm", "--", "true").status()).isZero();
        awaitArchive(cache);

        Map<String, String> otherJvm = new HashMap<>(env);
        otherJvm.put("JAVA_HOME", other.get().toString());
        otherJvm.put("JAVA_OPTS", "-Xlog:class+load=info");
        Run run = coordis(otherJvm, "-u", redis.uri(), "lock", "dist:jvm", "--", "true");
        assertThat(run.status()).as(run.err()).isZero();
        assertThat(run.out()).as("no archive of this JVM yet: the command's classes come from the jar")
                .doesNotContain(MAIN_FROM_ARCHIVE)
                .as("the JDK's own default archive still serves the JDK's classes")
                .contains("java.lang.Object source: shared objects file");
    }

    /** A JDK other than the one running this test, with its own default class-data archive. */
    private static Optional<Path> otherJdk() throws IOException {
        Path self = Path.of(System.getProperty("java.home")).toRealPath();
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> dirs = Files.list(jvms)) {
            return dirs.filter(d -> Files.isExecutable(d.resolve("bin/java")) && Files.isRegularFile(d.resolve("release")))
                    .filter(d -> {
                        try {
                            return !d.toRealPath().equals(self);
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .filter(d -> Files.exists(d.resolve("lib/server/classes.jsa")))
                    .findFirst();
        }
    }
}
