package io.coordis.cli.support;

import picocli.CommandLine.Option;

/**
 * The {@code -q/--quiet} option of the commands that say what they are doing on standard error. A picocli mixin; not
 * thread-safe, like the command it is part of.
 */
public final class QuietOption {
    @Option(names = {"-q", "--quiet"}, description = "No progress messages; errors are still shown.")
    boolean quiet;

    /** Whether progress messages are off. */
    public boolean on() {
        return quiet;
    }
}
