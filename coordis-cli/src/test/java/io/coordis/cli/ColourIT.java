package io.coordis.cli;

import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Colour only on a terminal, and never with NO_COLOR (any value) or TERM=dumb. */
class ColourIT {
    private static final String ESC = "\u001b[";

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void aTerminalGetsColourUnlessNoColorOrADumbTerminalSaysOtherwise() {
        try (CliProcess cli = CliProcess.startInTerminal("", Map.of("TERM", "xterm"), "doctor", "-u", redis.uri())) {
            assertThat(cli.exitCode()).as(cli.stdout()).isZero();
            assertThat(cli.stdout()).contains(ESC + "32mOK" + ESC + "0m");
        }
        try (CliProcess cli = CliProcess.startInTerminal("", Map.of("TERM", "xterm"), "doctor", "--help")) {
            assertThat(cli.exitCode()).isZero();
            assertThat(cli.stdout()).contains(ESC);
        }
        for (Map<String, String> env : java.util.List.of(Map.of("TERM", "xterm", "NO_COLOR", ""),
                Map.of("TERM", "xterm", "NO_COLOR", "1"), Map.of("TERM", "dumb"))) {
            try (CliProcess cli = CliProcess.startInTerminal("", env, "doctor", "-u", redis.uri())) {
                assertThat(cli.exitCode()).as(cli.stdout()).isZero();
                assertThat(cli.stdout()).as("with %s", env).contains("OK").doesNotContain(ESC);
            }
            try (CliProcess cli = CliProcess.startInTerminal("", env, "doctor", "--help")) {
                assertThat(cli.exitCode()).isZero();
                assertThat(cli.stdout()).as("help with %s", env).contains("Usage").doesNotContain(ESC);
            }
        }
    }

    @Test
    void aPipeGetsNoColour() {
        for (String[] args : new String[][] {{"doctor", "-u", redis.uri()}, {"doctor", "--help"}, {"ls", "-u", redis.uri()},
                {"--help"}}) {
            try (CliProcess cli = CliProcess.startWithEnv("TERM", "xterm", args)) {
                assertThat(cli.exitCode()).as(cli.stderr()).isZero();
                assertThat(cli.stdout() + cli.stderr()).doesNotContain(ESC);
            }
        }
    }
}
