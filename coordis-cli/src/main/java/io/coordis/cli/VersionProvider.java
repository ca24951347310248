package io.coordis.cli;

import picocli.CommandLine.IVersionProvider;

/** {@code coordis SUBCOMMAND --version}: the line {@code coordis --version} prints. */
final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        return new String[] {Main.versionLine()};
    }
}
