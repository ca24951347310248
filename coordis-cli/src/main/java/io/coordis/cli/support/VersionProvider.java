package io.coordis.cli.support;

import picocli.CommandLine.IVersionProvider;

/** {@code coordis SUBCOMMAND --version}: the line {@code coordis --version} prints. */
public final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        return new String[] {Program.versionLine()};
    }
}
