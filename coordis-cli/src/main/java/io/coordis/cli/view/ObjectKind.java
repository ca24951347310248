package io.coordis.cli.view;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

import java.util.Locale;

/** The kinds of objects {@code ls} and {@code inspect} show; singular and plural names are both accepted. */
public enum ObjectKind {
    LOCKS, ELECTIONS, QUEUES, SIGNALS, SEMAPHORES;

    public String plural() {
        return name().toLowerCase(Locale.ROOT);
    }

    public String singular() {
        String p = plural();
        return p.substring(0, p.length() - 1);
    }

    /** @throws ParameterException naming the accepted kinds */
    public static ObjectKind parse(String given, CommandSpec caller, boolean plural) {
        for (ObjectKind k : values()) {
            if (k.plural().equalsIgnoreCase(given) || k.singular().equalsIgnoreCase(given)) {
                return k;
            }
        }
        String choices = plural ? "locks, elections, queues, signals or semaphores"
                : "lock, election, queue, signal or semaphore";
        throw new ParameterException(caller.commandLine(), "unknown kind '" + given + "': use " + choices);
    }
}
