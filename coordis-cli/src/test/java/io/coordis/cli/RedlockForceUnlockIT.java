package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis force-unlock} in its own JVM given three {@code -u} URLs: the lock is a Redlock over those
 * independent masters, removed on every node with every node's fencing counter bumped and an audit entry on
 * each, so the next majority's fencing number is above the forced one.
 */
class RedlockForceUnlockIT {
    private static final LockOptions NO_GUARD = LockOptions.defaults().withRestartGuard(false) // the servers are fresh
            .withHolderId("erin@batch3:31");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    private static String[] on(String... args) {
        List<String> all = new ArrayList<>();
        for (String uri : redis.uris()) {
            all.add("-u");
            all.add(uri);
        }
        all.addAll(List.of(args));
        return all.toArray(String[]::new);
    }

    private static List<Object> onEveryNode(String... command) {
        List<Object> values = new ArrayList<>();
        for (RedisServer s : redis.servers()) {
            values.add(s.command(command));
        }
        return values;
    }

    /** Waits until every node holds {@code lease} (a node not awaited by the majority may be set a moment later). */
    private static void awaitOnEveryNode(String key, Lease lease) {
        for (int i = 0; i < 40 && !onEveryNode("GET", key).stream().allMatch(lease.token()::equals); i++) {
            CliProcess.sleep(50);
        }
        assertThat(onEveryNode("GET", key)).containsOnly(lease.token());
    }

    @Test
    void forcesTheLockOnEveryNodeAndBumpsEveryNodesFence() {
        String key = "it:rl:forced";
        String redisKey = Prefixed.key(key);
        String fenceKey = Prefixed.derived(key, "fence");
        try (Coordis coordis = TestClients.builder().urls(redis.uris()).connect()) {
            Lease lease = coordis.lock(key, NO_GUARD).tryAcquire().orElseThrow();
            awaitOnEveryNode(redisKey, lease);
            long fence = lease.fencingToken();
            // the number granted, written back to every node below it (a node's own later number may lie above)
            assertThat(onEveryNode("GET", fenceKey)).allSatisfy(v -> assertThat(Long.parseLong((String) v))
                    .isGreaterThanOrEqualTo(fence));

            try (CliProcess force = CliProcess.start(on("force-unlock", key, "--yes", "--reason", "batch3 froze"))) {
                assertThat(force.exitCode()).as(force.stderr()).isZero();
                java.util.regex.Matcher forced = java.util.regex.Pattern.compile("forced " + java.util.regex.Pattern.quote(
                        redisKey) + " holder=erin@batch3:31 fence=(\\d+) nodes=3/3\n").matcher(force.stdout());
                assertThat(forced.matches()).as(force.stdout()).isTrue();
                assertThat(Long.parseLong(forced.group(1))).as("the forced number").isGreaterThan(fence);
                assertThat(force.stderr()).startsWith("coordis: lock '" + key + "' is held by erin@batch3:31");
            }
            assertThat(onEveryNode("EXISTS", redisKey)).as("removed on every node").containsOnly(0L);
            assertThat(onEveryNode("GET", fenceKey)).as("every node's counter bumped")
                    .allSatisfy(v -> assertThat(Long.parseLong((String) v)).isGreaterThan(fence));
            for (Object entry : onEveryNode("LINDEX", Prefixed.derived(key, "audit"), "0")) {
                Map<String, Object> audit = TestJson.object((String) entry);
                assertThat(audit).containsEntry("action", "force-unlock").containsEntry("reason", "batch3 froze")
                        .containsEntry("holder", "erin@batch3:31");
                assertThat(((Number) audit.get("fence")).longValue()).isGreaterThan(fence);
            }
            lease.close();

            // the next holder's fencing number is above the forced one, and forcing it again bumps once more
            Lease next = coordis.lock(key, NO_GUARD).tryAcquire().orElseThrow();
            assertThat(next.fencingToken()).isGreaterThan(fence);
            awaitOnEveryNode(redisKey, next);
            try (CliProcess force = CliProcess.start(on("force-unlock", key, "-y", "-o", "json"))) {
                assertThat(force.exitCode()).as(force.stderr()).isZero();
                Map<String, Object> doc = TestJson.object(force.stdout());
                assertThat(doc).containsEntry("name", redisKey).containsEntry("holder", "erin@batch3:31")
                        .containsEntry("forced_nodes", 3L).containsEntry("nodes", 3L);
                assertThat(((Number) doc.get("fence")).longValue()).isGreaterThan(next.fencingToken());
            }
            assertThat(onEveryNode("EXISTS", redisKey)).containsOnly(0L);
            next.close();
        }
    }
}
