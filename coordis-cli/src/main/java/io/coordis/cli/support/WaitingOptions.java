package io.coordis.cli.support;

import picocli.CommandLine.Mixin;

/**
 * The options of the commands that wait on Redis and say on standard error what they wait for ({@code lock},
 * {@code semaphore}, {@code elect}, {@code wait}): whether to say it, {@code -q/--quiet} ({@link QuietOption}), and
 * where Redis is, {@code -u/--url} ({@link UrlOption}). A picocli mixin; not thread-safe, like the command it is part
 * of.
 */
public final class WaitingOptions {
    @Mixin
    QuietOption quiet = new QuietOption();

    @Mixin
    UrlOption urls = new UrlOption();

    /** Whether progress messages are off. */
    public boolean quiet() {
        return quiet.on();
    }

    /** Where Redis is: one URL, or three and more Redlock masters. */
    public UrlOption urls() {
        return urls;
    }
}
