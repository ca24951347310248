package io.coordis.cli.run;

import io.coordis.DurationText;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.support.Terminal;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Runs the command while a lock's lease or a leadership is held and watches both: the command's exit
 * gives the exit status; the claim's loss stops the command (SIGTERM, then SIGKILL after the grace
 * period) and gives 75.
 */
public final class Supervisor {
    private final Claim claim;
    private final List<String> command;
    private final Teardown teardown;
    private final Terminal terminal;

    public Supervisor(Claim claim, List<String> command, Teardown teardown, Terminal terminal) {
        this.claim = claim;
        this.command = command;
        this.teardown = teardown;
        this.terminal = terminal;
    }

    /** Blocks until the command has exited; answers the exit status for {@code coordis}. */
    public int run() {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().putAll(claim.environment());
        Process child;
        try {
            child = teardown.launch(builder);
        } catch (IOException e) {
            return cannotRun(e);
        }
        if (child == null) {
            return ExitCodes.SOFTWARE;
        }
        CompletableFuture<?> lost = claim.lost();
        CompletableFuture.anyOf(child.onExit(), lost).join();
        if (child.isAlive()) {
            terminal.say("lost " + claim.describe() + " while the command was running; stopping it (SIGTERM, SIGKILL after "
                    + DurationText.format(teardown.grace()) + ")");
            teardown.close();
            return ExitCodes.LOCK_LOST;
        }
        int status = child.exitValue();
        if (lost.isDone() || (!claim.isHeld() && !teardown.isClosed())) {
            terminal.say("lost " + claim.describe() + " before the command finished (its exit status was " + status + ")");
            return ExitCodes.LOCK_LOST;
        }
        return status;
    }

    private int cannotRun(IOException e) {
        String reason = e.getMessage() == null ? e.toString() : e.getMessage();
        int detail = reason.indexOf("error=");
        String why = detail >= 0 ? reason.substring(detail) : reason;
        boolean missing = why.contains("error=2,") || why.contains("No such file");
        terminal.say("cannot run '" + command.get(0) + "': " + why.replaceFirst("error=\\d+, ", ""));
        return missing ? ExitCodes.NOT_FOUND : ExitCodes.CANNOT_EXECUTE;
    }
}
