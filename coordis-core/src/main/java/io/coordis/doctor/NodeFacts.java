package io.coordis.doctor;

import java.util.List;
import java.util.Optional;

/**
 * What the doctor read from one node; {@code Optional.empty()} where the node would not say (a refused
 * command, or a field older servers lack).
 *
 * @param address          {@code host:port}
 * @param version          {@code redis_version}
 * @param role             {@code master} or {@code slave}
 * @param replicas         connected replicas (on a master)
 * @param masterLink       {@code up} or {@code down} (on a replica)
 * @param maxmemory        bytes, 0 for no limit
 * @param maxmemoryPolicy  e.g. {@code noeviction}
 * @param appendOnly       whether the append-only file is on
 * @param appendFsync      {@code always}, {@code everysec} or {@code no}
 * @param saveRules        the RDB {@code save} rules, empty string for none
 * @param user             the ACL user this connection runs as
 * @param aclMethod        how permissions were checked ({@code ACL GETUSER}), or why not
 * @param missingRequired  required commands the user may not run (ACL names, e.g. {@code script|load})
 * @param missingOptional  optional commands the user may not run
 * @param keyPatterns      the user's key patterns as Redis reports them
 * @param channelPatterns  the user's channel patterns
 * @param clockOffsetMicros the node's clock minus the client's, measured around one {@code TIME}
 * @param clockUncertaintyMicros half the round trip of that {@code TIME}
 */
public record NodeFacts(String address, Optional<String> version, Optional<String> role, Optional<Integer> replicas,
                        Optional<String> masterLink, Optional<Long> maxmemory, Optional<String> maxmemoryPolicy,
                        Optional<Boolean> appendOnly, Optional<String> appendFsync, Optional<String> saveRules,
                        Optional<String> user, String aclMethod, List<String> missingRequired,
                        List<String> missingOptional, List<String> keyPatterns, List<String> channelPatterns,
                        Optional<Long> clockOffsetMicros, Optional<Long> clockUncertaintyMicros) {
    /**
     * Copies the lists, so the facts cannot change.
     *
     * @param address          {@code host:port}
     * @param version          {@code redis_version}
     * @param role             {@code master} or {@code slave}
     * @param replicas         connected replicas (on a master)
     * @param masterLink       {@code up} or {@code down} (on a replica)
     * @param maxmemory        bytes, 0 for no limit
     * @param maxmemoryPolicy  e.g. {@code noeviction}
     * @param appendOnly       whether the append-only file is on
     * @param appendFsync      {@code always}, {@code everysec} or {@code no}
     * @param saveRules        the RDB {@code save} rules, empty string for none
     * @param user             the ACL user this connection runs as
     * @param aclMethod        how permissions were checked ({@code ACL GETUSER}), or why not
     * @param missingRequired  required commands the user may not run (ACL names, e.g. {@code script|load})
     * @param missingOptional  optional commands the user may not run
     * @param keyPatterns      the user's key patterns as Redis reports them
     * @param channelPatterns  the user's channel patterns
     * @param clockOffsetMicros the node's clock minus the client's, measured around one {@code TIME}
     * @param clockUncertaintyMicros half the round trip of that {@code TIME}
     */
    public NodeFacts {
        missingRequired = List.copyOf(missingRequired);
        missingOptional = List.copyOf(missingOptional);
        keyPatterns = List.copyOf(keyPatterns);
        channelPatterns = List.copyOf(channelPatterns);
    }
}
