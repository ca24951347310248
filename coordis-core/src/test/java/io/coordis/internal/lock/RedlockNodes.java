package io.coordis.internal.lock;

import io.coordis.Coordis;
import io.coordis.NodeVote;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.lock.QuorumUnavailableException;
import io.coordis.testkit.RedisServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiPredicate;

/**
 * What the Redlock tests look at on the nodes themselves, bypassing Coordis: a key's value on every
 * node, waiting for the asynchronous release of a failed attempt to land, and waiting for uptime.
 */
public final class RedlockNodes {
    private RedlockNodes() {
    }

    /** {@code GET key} on every server, in order ({@code null} where absent). */
    public static List<Object> values(List<RedisServer> servers, String key) {
        List<Object> values = new ArrayList<>();
        for (RedisServer s : servers) {
            values.add(s.command("GET", key));
        }
        return values;
    }

    /**
     * Waits at most {@code timeout} until {@code expected.test(i, value of key on server i)} holds on every
     * server; a failed attempt releases its partial grants without waiting for the replies, so the keys
     * vanish shortly after the call returns.
     *
     * @throws AssertionError naming every node's value when the condition never held
     */
    public static void awaitValues(List<RedisServer> servers, String key, Duration timeout,
                            BiPredicate<Integer, Object> expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Object> last;
        while (true) {
            last = values(servers, key);
            boolean all = true;
            for (int i = 0; i < last.size(); i++) {
                all &= expected.test(i, last.get(i));
            }
            if (all) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": values of '" + key + "' per node after " + timeout.toMillis()
                        + " ms: " + last);
            }
            Thread.sleep(10);
        }
    }

    /** Waits until every server reports {@code uptime_in_seconds >= seconds}. */
    public static void awaitUptime(List<RedisServer> servers, long seconds, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (RedisServer s : servers) {
            while (uptime(s) < seconds) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError(s.address() + " up only " + uptime(s) + " s, wanted " + seconds);
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * Waits until {@code client} has a working connection to every node: a throw-away lock (restart guard
     * off, so nothing is verified) is granted with every node's vote. A client opens its node connections
     * in the background, and its first attempt could otherwise meet a connection still being opened.
     */
    public static void warmUp(Coordis client, int nodes) throws InterruptedException {
        warmUp(client, nodes, Duration.ofSeconds(1));
    }

    /**
     * Like {@link #warmUp(Coordis, int)} with a probe of {@code ttl}; the restart guard's window is the
     * largest TTL a client used, so guard tests warm up with their own TTL.
     */
    public static void warmUp(Coordis client, int nodes, Duration ttl) throws InterruptedException {
        // a name of its own: clients warming up together must not contend for the probe
        DistributedLock probe = client.lock("redlock:warmup:" + io.coordis.internal.Tokens.next(), LockOptions.defaults().withTtl(ttl).withRestartGuard(false)
                .withAutoRenew(false).withNodeTimeout(Duration.ofMillis(200)));
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        String last = "no attempt";
        while (System.nanoTime() - deadline < 0) {
            try {
                java.util.Optional<Lease> lease = probe.tryAcquire();
                if (lease.isPresent()) {
                    Lease l = lease.get();
                    last = l.votes().toString();
                    l.release();
                    if (Quorum.count(l.votes(), NodeVote.Vote.ACQUIRED) == nodes) {
                        return;
                    }
                } else {
                    last = "busy";
                }
            } catch (QuorumUnavailableException e) {
                last = e.getMessage();
            }
            Thread.sleep(20);
        }
        throw new AssertionError("the client never reached all " + nodes + " nodes: " + last);
    }

    public static long uptime(RedisServer s) {
        return Long.parseLong(s.info("server").get("uptime_in_seconds"));
    }

    /**
     * Checks each node's vote against {@code expected}, allowing {@link NodeVote.Vote#NOT_AWAITED} for a node
     * that answered later than the majority's decision (plus a grace) on a loaded machine.
     */
    public static void assertVotes(java.util.List<NodeVote> votes, NodeVote.Vote... expected) {
        org.assertj.core.api.Assertions.assertThat(votes).hasSize(expected.length);
        for (int i = 0; i < expected.length; i++) {
            org.assertj.core.api.Assertions.assertThat(votes.get(i).vote()).as("vote of node %d in %s", i, votes)
                    .isIn(expected[i], NodeVote.Vote.NOT_AWAITED);
        }
    }
}
