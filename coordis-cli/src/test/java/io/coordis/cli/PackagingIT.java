package io.coordis.cli;

import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The launcher script next to the jar, and shell completion. */
class PackagingIT {
    private static final Path LAUNCHER = Path.of("target", "coordis");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    record Run(int status, String out, String err) {
    }

    private static Run run(Map<String, String> env, String input, String... command) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put(CoordisCommand.KEY_PREFIX_ENV, io.coordis.testkit.Prefixed.prefix()); // the run's
        pb.environment().putAll(env);
        Path out = Files.createTempFile("coordis-out", ".txt");
        Path err = Files.createTempFile("coordis-err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process p = pb.start();
        p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("finished: " + List.of(command)).isTrue();
        Run r = new Run(p.exitValue(), Files.readString(out), Files.readString(err));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    private static String[] launcher(Path script, String... args) {
        List<String> c = new ArrayList<>(List.of(script.toAbsolutePath().toString()));
        c.addAll(List.of(args));
        return c.toArray(String[]::new);
    }

    @Test
    void theLauncherRunsTheJarAndPassesArgumentsAndExitStatusThrough(@TempDir Path dir) throws Exception {
        assertThat(LAUNCHER).as("built by 'mvn package' next to the jar").isExecutable();
        Run version = run(Map.of(), "", launcher(LAUNCHER, "-V"));
        assertThat(version.status()).as(version.err()).isZero();
        assertThat(version.out()).startsWith("coordis 0.");

        Run push = run(Map.of(), "", launcher(LAUNCHER, "-u", redis.uri(), "queue", "push", "pkg:q", "first words", "2"));
        assertThat(push.status()).as(push.err()).isZero();
        Run pop = run(Map.of(), "", launcher(LAUNCHER, "-u", redis.uri(), "queue", "pop", "pkg:q"));
        assertThat(pop.status()).as(pop.err()).isZero();
        assertThat(pop.out()).isEqualTo("first words\n");

        Run child = run(Map.of(), "", launcher(LAUNCHER, "-u", redis.uri(), "lock", "pkg:lock", "--", "sh", "-c", "exit 7"));
        assertThat(child.status()).as("the child's status: " + child.err()).isEqualTo(7);
        Run empty = run(Map.of(), "", launcher(LAUNCHER, "-u", redis.uri(), "queue", "pop", "pkg:empty"));
        assertThat(empty.status()).isEqualTo(1);
        Run usage = run(Map.of(), "", launcher(LAUNCHER, "lock"));
        assertThat(usage.status()).isEqualTo(64);

        // reached through a symbolic link, from another directory
        Path link = dir.resolve("coordis");
        Files.createSymbolicLink(link, LAUNCHER.toAbsolutePath());
        Run linked = run(Map.of(), "", launcher(link, "--version"));
        assertThat(linked.status()).as(linked.err()).isZero();

        Run missing = run(Map.of("COORDIS_JAR", dir.resolve("nope.jar").toString()), "", launcher(LAUNCHER, "-V"));
        assertThat(missing.status()).isEqualTo(69);
        assertThat(missing.err()).startsWith("coordis: cannot find coordis.jar").contains("COORDIS_JAR");
    }

    @Test
    void theLauncherWithoutACacheDirectoryRunsWithoutAnArchiveAndSaysNothingOfIt(@TempDir Path dir) throws Exception {
        // COORDIS_CACHE_DIR set to nothing: no archive, no rehearsal, the same output
        Run plain = run(Map.of("COORDIS_CACHE_DIR", ""), "", launcher(LAUNCHER, "-u", redis.uri(), "lock",
                "pkg:archived", "--", "true"));
        assertThat(plain.status()).as(plain.err()).isZero();
        assertThat(plain.err()).matches("coordis: acquired 'pkg:archived' \\(token \\d+\\)\n");
        Run help = run(Map.of("COORDIS_CACHE_DIR", dir.toString()), "", launcher(LAUNCHER, "--help"));
        assertThat(help.status()).isZero();
        assertThat(help.err()).isEmpty();
    }

    @Test
    void bashCompletionIsValidAndCompletesCommandsSubcommandsAndOptions(@TempDir Path dir) throws Exception {
        Run bash = run(Map.of(), "", launcher(LAUNCHER, "completion", "bash"));
        assertThat(bash.status()).as(bash.err()).isZero();
        Path script = dir.resolve("coordis-completion.bash");
        Files.writeString(script, bash.out());
        Run syntax = run(Map.of(), "", "bash", "-n", script.toString());
        assertThat(syntax.status()).as(syntax.err()).isZero();
        String probe = "source " + script + " 2>/dev/null\n"
                + "complete -p coordis\n"
                + "COMP_WORDS=(coordis qu); COMP_CWORD=1; COMPREPLY=(); _complete_coordis coordis qu coordis 2>/dev/null; echo \"1:${COMPREPLY[*]}\"\n"
                + "COMP_WORDS=(coordis queue p); COMP_CWORD=2; COMPREPLY=(); _complete_coordis coordis p queue 2>/dev/null; echo \"2:${COMPREPLY[*]}\"\n"
                + "COMP_WORDS=(coordis doctor --max); COMP_CWORD=2; COMPREPLY=(); _complete_coordis coordis --max doctor 2>/dev/null; echo \"3:${COMPREPLY[*]}\"\n";
        Run completed = run(Map.of(), probe, "bash");
        assertThat(completed.out()).contains("complete -o default -F _complete_coordis coordis", "1:queue",
                "2:push pop", "3:--max-skew");

        Run zsh = run(Map.of(), "", launcher(LAUNCHER, "completion", "zsh"));
        assertThat(zsh.status()).isZero();
        assertThat(zsh.out()).startsWith("autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n")
                .contains("_complete_coordis");
        Run fish = run(Map.of(), "", launcher(LAUNCHER, "completion", "fish"));
        assertThat(fish.status()).isEqualTo(64);
        assertThat(fish.err()).contains("unknown shell 'fish'");
    }
}
