package io.coordis.internal.lock;

import io.coordis.internal.Timer;
import io.coordis.internal.redis.Namespace;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The Redlock specification's "delayed restart", enforced: a node that restarted without persistence has
 * forgotten the locks it granted, so its vote must not count until every lock it could have granted has
 * expired — until it has been up longer than the largest lock TTL in use.
 *
 * <p>A marker key ({@link LockLayout#RESTART_GUARD_MARKER}, holding the node's {@code run_id}) is set on a
 * node once its uptime ({@code INFO server}) was seen to exceed that window. The acquire script refuses to vote unless the
 * marker holds the run_id this very client verified, so a node that comes back empty refuses by itself,
 * with no race against the client noticing the restart, and a client with a shorter window that
 * re-verified the restarted node cannot vouch for it to a client with a longer one. A node restored from an RDB snapshot brings its marker back; its changed
 * {@code run_id} is noticed only when a client verifies the node again (a client that starts later
 * does), so nodes with snapshot persistence need the operational rule of the specification: keep a
 * crashed node down for the largest TTL. Nodes with {@code appendfsync always} forget nothing and may
 * turn the guard off. Thread-safe.
 */
final class RestartGuard {
    private static final Logger log = LoggerFactory.getLogger(RestartGuard.class);

    private final LockNode node;
    private final String marker;
    private final Timer timer;
    private volatile String verifiedRunId;
    private volatile CompletableFuture<String> checking;
    /** How long the node still had to be up when a check last refused it. */
    private volatile Duration untilTrusted = Duration.ZERO;

    /**
     * The guard of {@code node}, its marker key {@link LockLayout#RESTART_GUARD_MARKER} in the client's namespace;
     * the deadlines of its checks run on {@code timer}.
     */
    RestartGuard(LockNode node, Namespace namespace, Timer timer) {
        this.node = node;
        this.marker = namespace.key(LockLayout.RESTART_GUARD_MARKER);
        this.timer = timer;
    }

    /** The marker key on this guard's node. */
    String marker() {
        return marker;
    }

    /** The run_id this client verified for the node, or {@code null} when it must verify (again). */
    String verifiedRunId() {
        return verifiedRunId;
    }

    /**
     * The acquire script found no marker, or one with another run_id: the node restarted (or was flushed)
     * since this client verified it; verify it again against this client's own window.
     */
    void markerMissing() {
        if (verifiedRunId != null) {
            log.warn("Redis at {} lost its restart-guard marker (restarted without persistence, or flushed); "
                    + "its votes wait until it has been up longer than the lock TTL", node.address());
        }
        verifiedRunId = null;
    }

    /**
     * Checks the node's uptime against {@code window} and sets the marker if it is long enough; answers
     * the verified run_id, or {@code null} when the node may not vote yet. One check at a time; concurrent
     * callers share it. Every step is bounded by {@code timeout}.
     */
    CompletableFuture<String> verify(Duration window, Duration timeout) {
        CompletableFuture<String> running = checking;
        if (running != null && !running.isDone()) {
            return running;
        }
        CompletableFuture<String> check = node.within(node.info("server"), timer, timeout)
                .thenCompose(info -> decide(info, window, timeout));
        checking = check;
        return check;
    }

    private CompletableFuture<String> decide(Map<String, String> info, Duration window, Duration timeout) {
        String runId = info.getOrDefault("run_id", "");
        if (!upLongerThan(info, window)) {
            untilTrusted = untilUpLongerThan(info, window);
            return CompletableFuture.completedFuture(null);
        }
        return node.within(node.set(marker, runId), timer, timeout).thenApply(ok -> {
            verifiedRunId = runId;
            return runId;
        });
    }

    /** How long the node still had to be up when the last check refused it (from that check's start). */
    Duration untilTrusted() {
        return untilTrusted;
    }

    /**
     * How long until {@link #upLongerThan} holds for a node whose {@code INFO server} is {@code info}: the window
     * plus the second of rounding, rounded up to whole seconds as the uptime is, less the uptime (at least its
     * whole seconds, so this is never short).
     */
    static Duration untilUpLongerThan(Map<String, String> info, Duration window) {
        long uptime = Long.parseLong(info.getOrDefault("uptime_in_seconds", "0"));
        Duration needed = window.plusSeconds(1);
        long neededSeconds = needed.getSeconds() + (needed.getNano() > 0 ? 1 : 0);
        return Duration.ofSeconds(Math.max(0, neededSeconds - uptime));
    }

    /**
     * Whether the node's {@code INFO server} shows it up longer than {@code window}. Only unverified nodes are
     * asked (a restart is caught by the script comparing run_ids), so the uptime alone decides. It is whole
     * seconds, rounded down: one more second makes the comparison safe.
     */
    static boolean upLongerThan(Map<String, String> info, Duration window) {
        long uptime = Long.parseLong(info.getOrDefault("uptime_in_seconds", "0"));
        return Duration.ofSeconds(uptime).compareTo(window.plusSeconds(1)) >= 0;
    }
}
