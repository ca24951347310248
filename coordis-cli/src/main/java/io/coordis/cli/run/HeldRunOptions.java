package io.coordis.cli.run;

import io.coordis.cli.support.UrlOption;
import io.coordis.cli.support.WaitingOptions;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Duration;

/**
 * The options of the commands that run CMD while holding a claim with {@link HeldRun} ({@code lock},
 * {@code semaphore}): how long the claim outlives this process, how long to wait for it, and the exit status when it
 * is not had; then how long CMD may take to stop ({@link GraceOption}), and whether to say what is waited for and
 * where Redis is ({@link WaitingOptions}). The texts speak of the lock; {@code semaphore} gives its own under the keys
 * {@code ttl}, {@code wait}, {@code nonblock} and {@code conflict-exit-code}
 * ({@link io.coordis.cli.support.Descriptions}). A picocli mixin; not thread-safe, like the command it is part of.
 */
public final class HeldRunOptions {
    @Option(names = "--ttl", paramLabel = "D", defaultValue = "30s", descriptionKey = "ttl",
            description = "How long the lock outlives this process if it dies without releasing; "
                    + "renewed every TTL/3. At least 100ms. Default: ${DEFAULT-VALUE}.")
    Duration ttl;

    @Option(names = {"-w", "--wait"}, paramLabel = "D", descriptionKey = "wait",
            description = "Give up after waiting this long for the lock. Default: wait as long as it takes.")
    Duration wait;

    @Option(names = {"-n", "--nonblock"}, descriptionKey = "nonblock",
            description = "Do not wait: give up at once if the lock is held.")
    boolean nonblock;

    @Option(names = {"-E", "--conflict-exit-code"}, paramLabel = "N", defaultValue = "1",
            descriptionKey = "conflict-exit-code",
            description = "Exit status when the lock is not acquired (0-255). Default: ${DEFAULT-VALUE}.")
    int conflictExitCode;

    @Mixin
    GraceOption grace = new GraceOption();

    @Mixin
    WaitingOptions waiting = new WaitingOptions();

    /** How long the claim outlives this process if it dies without releasing. */
    public Duration ttl() {
        return ttl;
    }

    /** How long to wait for the claim; {@code null}: as long as it takes. */
    public Duration maxWait() {
        return wait;
    }

    /** Whether to give up at once when the claim is not free. */
    public boolean nonblock() {
        return nonblock;
    }

    /** The exit status when the claim is not acquired. */
    public int conflictExitCode() {
        return conflictExitCode;
    }

    /** After SIGTERM, how long CMD may take to exit before SIGKILL; never null. */
    public Duration grace() {
        return grace.duration();
    }

    /** Whether progress messages are off. */
    public boolean quiet() {
        return waiting.quiet();
    }

    /** Where Redis is: one URL, or three and more Redlock masters. */
    public UrlOption urls() {
        return waiting.urls();
    }

    /** The wait {@link HeldRun#run} is given: zero for {@code --nonblock}, else {@link #maxWait()}. */
    public Duration budget() {
        return nonblock ? Duration.ZERO : wait;
    }
}
