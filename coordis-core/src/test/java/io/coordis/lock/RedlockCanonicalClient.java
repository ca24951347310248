package io.coordis.lock;

import io.coordis.internal.Tokens;
import io.coordis.testkit.RespClient;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The Redlock of the specification written with raw commands, as another language's client would do it:
 * {@code SET name value NX PX ttl} on every node, held with at least {@code quorum} nodes within the
 * validity, otherwise (and on release) the standard compare-and-delete script on every node.
 *
 * <p>With {@code quorum} 1 and the nodes tried in a random order it is the deliberately broken variant
 * the mutual-exclusion checker must catch: one node's yes counts as the lock. Not thread-safe.
 */
final class RedlockCanonicalClient implements AutoCloseable {
    /** The release script of the specification, verbatim. */
    static final String RELEASE = """
            if redis.call("get",KEYS[1]) == ARGV[1] then
                return redis.call("del",KEYS[1])
            else
                return 0
            end""";

    private final List<RespClient> nodes = new ArrayList<>();
    private final int quorum;
    private final boolean shuffle;

    /** @param addresses {@code host:port} of each node */
    RedlockCanonicalClient(List<String> addresses, int quorum, boolean shuffle) {
        this.quorum = quorum;
        this.shuffle = shuffle;
        try {
            for (String a : addresses) {
                int colon = a.lastIndexOf(':');
                nodes.add(RespClient.connect(a.substring(0, colon), Integer.parseInt(a.substring(colon + 1)),
                        Duration.ofSeconds(2)));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The canonical client: majority, nodes in their order. */
    static RedlockCanonicalClient canonical(List<String> addresses) {
        return new RedlockCanonicalClient(addresses, addresses.size() / 2 + 1, false);
    }

    /** The broken client: any single node's SET is taken for the lock. */
    static RedlockCanonicalClient singleNode(List<String> addresses) {
        return new RedlockCanonicalClient(addresses, 1, true);
    }

    /** One acquisition attempt; the value (token) when held. */
    Optional<String> tryLock(String name, Duration ttl) {
        String value = Tokens.next();
        long start = System.nanoTime();
        int granted = 0;
        for (RespClient node : order()) {
            try {
                if ("OK".equals(node.command("SET", name, value, "NX", "PX", Long.toString(ttl.toMillis())))) {
                    granted++;
                }
            } catch (UncheckedIOException e) {
                // a node that does not answer does not vote
            }
        }
        long validity = ttl.toNanos() - (System.nanoTime() - start) - (long) (ttl.toNanos() * 0.01) - 2_000_000L;
        if (granted >= quorum && validity > 0) {
            return Optional.of(value);
        }
        unlock(name, value);
        return Optional.empty();
    }

    /** Compare-and-delete on every node; how many nodes deleted our value. */
    int unlock(String name, String value) {
        int deleted = 0;
        for (RespClient node : nodes) {
            try {
                deleted += ((Long) node.command("EVAL", RELEASE, "1", name, value)).intValue();
            } catch (UncheckedIOException e) {
                // expires by its TTL
            }
        }
        return deleted;
    }

    private List<RespClient> order() {
        if (!shuffle) {
            return nodes;
        }
        List<RespClient> shuffled = new ArrayList<>(nodes);
        Collections.shuffle(shuffled);
        return shuffled;
    }

    @Override
    public void close() {
        for (RespClient c : nodes) {
            c.close();
        }
    }
}
