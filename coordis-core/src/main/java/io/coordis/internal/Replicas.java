package io.coordis.internal;

import io.coordis.NotReplicatedException;
import io.coordis.Replication;

import java.util.concurrent.CompletableFuture;

/**
 * Reads the answer of a {@code WAIT} sent after a write that must reach replicas ({@link Replication}): enough
 * replicas, or a {@link NotReplicatedException} that names the object, the key, both counts and what to check.
 */
public final class Replicas {
    private Replicas() {
    }

    /**
     * Completes when {@code acks} (the {@code WAIT} reply for {@code replication}) reached the replicas asked for;
     * fails with a {@link NotReplicatedException} otherwise, whose message says {@code outcome} (what became of the
     * write), and with the failure of {@code acks} when the {@code WAIT} itself failed. Does not block.
     */
    public static CompletableFuture<Void> confirm(CompletableFuture<Long> acks, Replication replication, String object,
                                                  String key, String node, String outcome) {
        return acks.thenApply(acknowledged -> {
            if (acknowledged < replication.replicas()) {
                throw notReplicated(replication, acknowledged, object, key, node, outcome);
            }
            return null;
        });
    }

    static NotReplicatedException notReplicated(Replication replication, long acknowledged, String object, String key,
                                                String node, String outcome) {
        return new NotReplicatedException(node, key, acknowledged, replication.replicas(), object + ": the write of '"
                + key + "' reached " + acknowledged + " of " + replication.replicas() + " replica"
                + (replication.replicas() == 1 ? "" : "s") + " within " + Durations.format(replication.timeout())
                + " at Redis " + node + ", so " + outcome + "; check that the replicas are up and keep up "
                + "(INFO replication: connected_slaves, each replica's lag), or ask for fewer replicas or a longer "
                + "wait");
    }
}
