package io.coordis.shedlock;

import io.coordis.Coordis;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;

import static io.coordis.shedlock.CoordisLockProviderIT.job;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A fleet during a migration: instances still on ShedLock's Redis provider ({@link ShedLockRedisClient}, which
 * speaks its wire protocol) and instances on {@link CoordisLockProvider} with {@code shedLockLayout}, on one Redis.
 */
class MixedFleetIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis client;
    private Coordis otherClient;
    private CoordisLockProvider coordis;
    private CoordisLockProvider otherCoordis;

    @BeforeEach
    void connect() {
        client = Coordis.builder().keyPrefix(Prefixed.prefix()).url(redis.uri()).connect();
        otherClient = Coordis.builder().keyPrefix(Prefixed.prefix()).url(redis.uri()).connect();
        coordis = CoordisLockProvider.builder(client).shedLockLayout("default").build();
        otherCoordis = CoordisLockProvider.builder(otherClient).shedLockLayout("default").build();
    }

    @AfterEach
    void close() {
        client.close();
        otherClient.close();
    }

    private ShedLockRedisClient shedLock(boolean safeUpdate) {
        return new ShedLockRedisClient(redis.server(), "default", safeUpdate);
    }

    /** A ShedLock instance's lock on {@code name} whose job outlived its lockAtMostFor (150 ms): the key is gone. */
    private static ShedLockRedisClient.Held outlived(ShedLockRedisClient shedLock, String name) throws InterruptedException {
        ShedLockRedisClient.Held late = shedLock.lock(name, Duration.ofMillis(150)).orElseThrow();
        Thread.sleep(250);
        return late;
    }

    private boolean exists(String key) {
        return Long.valueOf(1).equals(redis.server().command("EXISTS", key));
    }

    @Test
    void keysFollowTheLayoutChosen() {
        SimpleLock plain = CoordisLockProvider.of(client).lock(job("layout")).orElseThrow();
        assertThat(exists(Prefixed.key("layout"))).as("Coordis's layout: the name").isTrue();
        assertThat((String) redis.server().command("GET", Prefixed.key("layout"))).matches("[0-9a-f]{40}");
        SimpleLock shed = coordis.lock(job("layout")).orElseThrow();
        assertThat((String) redis.server().command("GET", Prefixed.key("job-lock:default:layout")))
                .as("ShedLock's value: ADDED:<ISO time>@<host>:<id>")
                .matches("ADDED:\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z@[^:]+:[0-9a-f]{40}");
        SimpleLock custom = CoordisLockProvider.builder(client).shedLockLayout("jobs", "prod").build()
                .lock(job("layout")).orElseThrow();
        assertThat(exists(Prefixed.key("jobs:prod:layout"))).isTrue();
        plain.unlock();
        shed.unlock();
        custom.unlock();
        assertThat(exists(Prefixed.key("job-lock:default:layout"))).isFalse();
    }

    @ParameterizedTest(name = "safeUpdate={0}")
    @ValueSource(booleans = {false, true})
    void neitherSideEntersWhileTheOtherHolds(boolean safeUpdate) {
        ShedLockRedisClient shedLock = shedLock(safeUpdate);
        String name = "mixed-" + safeUpdate;

        ShedLockRedisClient.Held foreign = shedLock.lock(name, Duration.ofSeconds(30)).orElseThrow();
        assertThat(coordis.lock(job(name))).as("Coordis while ShedLock holds").isEmpty();
        foreign.unlock(Duration.ZERO);

        SimpleLock ours = coordis.lock(job(name)).orElseThrow();
        assertThat(shedLock.lock(name, Duration.ofSeconds(30))).as("ShedLock while Coordis holds").isEmpty();
        ours.unlock();
        assertThat(shedLock.lock(name, Duration.ofSeconds(30))).isPresent().get()
                .satisfies(h -> h.unlock(Duration.ZERO));
    }

    @ParameterizedTest(name = "safeUpdate={0}")
    @ValueSource(booleans = {false, true})
    void lockAtLeastForHoldsAcrossBothSides(boolean safeUpdate) {
        ShedLockRedisClient shedLock = shedLock(safeUpdate);
        String name = "mixed-atleast-" + safeUpdate;

        shedLock.lock(name, Duration.ofSeconds(30)).orElseThrow().unlock(Duration.ofMillis(500));
        assertThat(coordis.lock(job(name))).as("ShedLock's lockAtLeastFor").isEmpty();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
                .until(() -> coordis.lock(job(name, Duration.ofSeconds(30), Duration.ofMillis(500))).map(l -> {
                    l.unlock();
                    return true;
                }).orElse(false));
        assertThat(shedLock.lock(name, Duration.ofSeconds(30))).as("Coordis's lockAtLeastFor").isEmpty();
        await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
                .until(() -> shedLock.lock(name, Duration.ofSeconds(30)).isPresent());
    }

    /** safeUpdate: a late ShedLock instance compares its value, so it never touches a Coordis holder's key. */
    @Test
    void aLateSafeShedLockInstanceLeavesACoordisHolderAlone() throws Exception {
        ShedLockRedisClient shedLock = shedLock(true);
        ShedLockRedisClient.Held late = outlived(shedLock, "late-safe");
        SimpleLock ours = coordis.lock(job("late-safe")).orElseThrow();
        assertThat(late.extend(Duration.ofSeconds(30))).isFalse();
        late.unlock(Duration.ZERO);
        assertThat(otherCoordis.lock(job("late-safe"))).as("still held by Coordis").isEmpty();
        assertThat(shedLock.lock("late-safe", Duration.ofSeconds(30))).isEmpty();
        ours.unlock();
    }

    /**
     * The hazard docs/migrating.md warns of: ShedLock's default unlock is a plain DEL. An instance whose job outlived
     * its lockAtMostFor deletes the key a Coordis instance took since, and a third instance gets in while the Coordis
     * holder still runs. Coordis's side cannot prevent that, but its fencing numbers let the resource refuse the
     * holder that was overtaken.
     */
    @Test
    void aLateShedLockInstanceWithPlainDelDeletesACoordisHoldersKey() throws Exception {
        ShedLockRedisClient shedLock = shedLock(false);
        ShedLockRedisClient.Held late = outlived(shedLock, "late-del");
        try (FencedResource resource = FencedResource.start()) {
            coordis.lock(job("late-del")).orElseThrow();
            long holder = fenceOfRunning();
            resource.enter("coordis-a", holder);
            assertThat(resource.write("coordis-a", holder)).isTrue();

            late.unlock(Duration.ZERO); // DEL, without looking at the value
            assertThat(exists(ShedLockRedisClient.key("default", "late-del"))).isFalse();
            SimpleLock intruder = otherCoordis.lock(job("late-del")).orElseThrow();
            long second = fenceOfRunning();
            resource.enter("coordis-b", second);
            assertThat(resource.write("coordis-b", second)).isTrue();
            assertThat(resource.write("coordis-a", holder)).as("the fence refuses the overtaken holder").isFalse();
            assertThat(resource.report().overlaps()).as("two holders at once").isEqualTo(1);
            assertThat(resource.report().violations()).isZero();
            intruder.unlock();
        }
    }

    /** A late ShedLock instance's SET XX PX (extend, or lockAtLeastFor at unlock) overwrites a Coordis holder's value. */
    @Test
    void aLateShedLockExtendWithoutSafeUpdateTakesTheKeyOver() throws Exception {
        ShedLockRedisClient shedLock = shedLock(false);
        ShedLockRedisClient.Held late = outlived(shedLock, "late-set");
        SimpleLock ours = coordis.lock(job("late-set", Duration.ofSeconds(30), Duration.ZERO)).orElseThrow();
        assertThat(late.extend(Duration.ofMillis(400))).as("SET XX overwrites whatever is there").isTrue();
        assertThat(redis.server().command("GET", late.key)).isEqualTo(late.value);
        assertThat(ours.extend(Duration.ofSeconds(30), Duration.ZERO)).as("no longer ours").isEmpty();
        assertThat(otherCoordis.lock(job("late-set"))).as("the key still excludes until it expires").isEmpty();
    }

    /** The fencing number of the lock this thread took last and still holds; each test unlocks what it needs to. */
    private static long fenceOfRunning() {
        return CoordisLockProvider.currentFencingToken();
    }
}
