package io.coordis.cli.run;

import picocli.CommandLine.Option;

import java.time.Duration;

/**
 * The {@code --grace} option of the commands that run other commands: how long those may take to exit after SIGTERM
 * before SIGKILL. A command whose text differs gives its own under the key {@code grace}
 * ({@link io.coordis.cli.support.Descriptions}). A picocli mixin; not thread-safe, like the command it is part of.
 */
public final class GraceOption {
    @Option(names = "--grace", paramLabel = "D", defaultValue = "10s", descriptionKey = "grace",
            description = "After SIGTERM, how long CMD may take to exit before SIGKILL. Default: ${DEFAULT-VALUE}.")
    Duration grace;

    /** The grace period; never null. */
    public Duration duration() {
        return grace;
    }
}
