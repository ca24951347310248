package io.coordis.shedlock;

import io.coordis.Coordis;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;

import static io.coordis.shedlock.CoordisLockProviderIT.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The provider on a client with three URLs: the client locks by Redlock, and the provider does not notice. */
class RedlockProviderIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    private static Coordis connect() {
        return Coordis.builder().keyPrefix(Prefixed.prefix()).urls(redis.uris()).connect();
    }

    /** Fresh servers: the restart guard would refuse their votes until they have been up longer than the TTL. */
    private static CoordisLockProvider provider(Coordis client) {
        return CoordisLockProvider.builder(client).lockOptions(LockOptions.defaults().withRestartGuard(false)).build();
    }

    @Test
    void locksExtendsAndKeepsLockAtLeastForOnEveryNode() {
        try (Coordis a = connect(); Coordis b = connect()) {
            CoordisLockProvider first = provider(a);
            CoordisLockProvider second = provider(b);
            SimpleLock lock = first.lock(job("redlocked", Duration.ofSeconds(2), Duration.ZERO)).orElseThrow();
            assertThat(second.lock(job("redlocked"))).isEmpty();
            lock = lock.extend(Duration.ofSeconds(30), Duration.ofMillis(600)).orElseThrow();
            // A round decides once a majority answered; the last node's write may still be on its way.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                for (RedisServer s : redis.servers()) {
                    assertThat((Long) s.command("PTTL", Prefixed.key("redlocked"))).isGreaterThan(20_000L);
                }
            });
            lock.unlock();
            // Every node shortens the key to what is left of lockAtLeastFor; a late node may find it expired already.
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5)).until(() -> redis.servers().stream()
                    .allMatch(s -> (Long) s.command("PTTL", Prefixed.key("redlocked")) <= 600L));
            assertThat(redis.servers().stream().filter(s -> (Long) s.command("PTTL", Prefixed.key("redlocked")) > 0))
                    .as("nodes still keeping the lock for at least 600 ms").hasSizeGreaterThanOrEqualTo(2);
            assertThat(second.lock(job("redlocked"))).isEmpty();
            await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
                    .until(() -> second.lock(job("redlocked")).map(l -> {
                        l.unlock();
                        return true;
                    }).orElse(false));
        }
    }
}
