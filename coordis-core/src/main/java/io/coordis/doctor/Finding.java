package io.coordis.doctor;

import java.util.Objects;

/**
 * One thing the doctor found about one node (or about several, for clock skew).
 *
 * @param severity how much it matters
 * @param node     the node it is about ({@code host:port}), or {@code "*"} for all nodes together
 * @param topic    what was checked: {@code version}, {@code role}, {@code replication}, {@code eviction},
 *                 {@code persistence}, {@code acl}, {@code acl-prefix}, {@code old-layout}, {@code clock}
 * @param message  what was found, one line
 * @param fix      what to do about it, one line (empty when nothing)
 */
public record Finding(Severity severity, String node, String topic, String message, String fix) {
    /**
     * Checks that the finding says what it is about; a null {@code fix} reads as empty.
     *
     * @param severity how much it matters
     * @param node     the node it is about ({@code host:port}), or {@code "*"} for all nodes together
     * @param topic    what was checked: {@code version}, {@code role}, {@code replication}, {@code eviction},
     *                 {@code persistence}, {@code acl}, {@code acl-prefix}, {@code old-layout}, {@code clock}
     * @param message  what was found, one line
     * @param fix      what to do about it, one line (empty when nothing)
     * @throws NullPointerException when {@code severity}, {@code node}, {@code topic} or {@code message} is null
     */
    public Finding {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(message, "message");
        fix = fix == null ? "" : fix;
    }

    /** How much a finding matters. */
    public enum Severity {
        /** As Coordis needs it. */
        OK,
        /** Works, but a guarantee is weaker than it could be (e.g. eviction may drop locks). */
        WARN,
        /** Coordis will fail or be unsafe here (e.g. a required command is not permitted). */
        FAIL,
        /** Could not be checked (e.g. the user may not read the configuration). */
        UNKNOWN
    }
}
