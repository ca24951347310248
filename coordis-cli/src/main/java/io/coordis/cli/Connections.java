package io.coordis.cli;

import io.coordis.Coordis;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Opens Coordis clients for commands, turning a malformed URL into a usage error. */
final class Connections {
    private Connections() {
    }

    /**
     * @throws ParameterException when the URL is malformed (the message never repeats a password)
     * @throws io.coordis.CoordisException when Redis is unreachable or refuses the credentials
     */
    static Coordis open(String url, CommandSpec caller) {
        try {
            return Coordis.connect(url);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(caller.commandLine(), e.getMessage());
        }
    }
}
