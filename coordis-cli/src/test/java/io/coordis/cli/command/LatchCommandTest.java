package io.coordis.cli.command;

import io.coordis.cli.InProcess;
import io.coordis.cli.support.ExitCodes;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis latch}'s arguments, checked before anything touches Redis, and the commands suggested near it. */
class LatchCommandTest {
    @Test
    void refusesBadArgumentsBeforeConnecting() {
        InProcess cli = new InProcess();
        // nothing listens on port 1: a check that connected first would exit 69
        cli.assertUsageError(cli.run("latch", "-u", "redis://127.0.0.1:1", "it:bad"), "Missing required parameter",
                "coordis latch");
        cli.assertUsageError(cli.run("latch", "-u", "redis://127.0.0.1:1", "it:bad", "wait"),
                "unknown action 'wait': use count-down or await", "coordis latch");
        cli.assertUsageError(cli.run("latch", "-u", "redis://127.0.0.1:1", "--expire", "0", "it:bad", "await"),
                "--expire must be between 1ms and 30d, was 0ms", "coordis latch");
    }

    @Test
    void aMistypedCommandIsSuggestedAndAFarOneIsNot() {
        InProcess cli = new InProcess();
        assertThat(cli.run("lacth", "x", "await")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).contains("Did you mean: coordis latch");
        assertThat(cli.run("frobnicate")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).doesNotContain("Did you mean");
    }
}
