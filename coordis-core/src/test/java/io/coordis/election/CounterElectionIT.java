package io.coordis.election;

import io.coordis.Coordis;
import io.coordis.ManualTicker;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The counter election against a real redis-server, with the classic master() function as another candidate. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CounterElectionIT {
    private static final Duration TERM = Duration.ofSeconds(2);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis client;

    @BeforeEach
    void connect() {
        client = TestClients.connect(redis.uri());
    }

    @AfterEach
    void close() {
        client.close();
    }

    /** The classic Python master(), command for command: INCR, then EXPIRE key 20 while leading. */
    static final class ClassicCandidate implements AutoCloseable {
        private final RespClient rc;
        private final String key;
        long localSelector;

        ClassicCandidate(String key) {
            this.rc = RespClient.connect(redis.server());
            this.key = key;
        }

        boolean master() {
            long masterSelector = (Long) rc.command("INCR", key);
            if (masterSelector == 1) {
                localSelector = masterSelector;
            } else if (localSelector > 0) {
                localSelector = localSelector > masterSelector ? 0 : masterSelector;
            }
            if (localSelector > 0) {
                rc.command("EXPIRE", key, "20");
            }
            return localSelector > 0;
        }

        @Override
        public void close() {
            rc.close();
        }
    }

    @Test
    void takesPartInTheSameElectionAsTheClassicMasterFunction() throws Exception {
        CounterElection mine = client.counterElection("master_selector", TERM);
        try (ClassicCandidate classic = new ClassicCandidate(Prefixed.key("master_selector"))) {
            assertThat(mine.round()).as("first INCR answers 1: Coordis leads").isTrue();
            for (int i = 0; i < 5; i++) {
                assertThat(classic.master()).as("classic candidate, round %d", i).isFalse();
                assertThat(mine.round()).as("Coordis stays leader, round %d", i).isTrue();
                assertThat(mine.isLeader()).isTrue();
            }
            assertThat(mine.remembered())
                    .isEqualTo(Long.parseLong((String) redis.server().command("GET", Prefixed.key("master_selector"))));
            assertThat((Long) redis.server().command("TTL", Prefixed.key("master_selector")))
                    .isBetween(1L, TERM.toSeconds());

            // Coordis stops taking part: its term runs out, and the classic candidate takes over.
            long stopped = System.nanoTime();
            while (!classic.master()) {
                assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(TERM.plusSeconds(3));
                Thread.sleep(100);
            }
            assertThat(mine.isLeader()).as("Coordis knows its term ended").isFalse();
            assertThat((Long) redis.server().command("TTL", Prefixed.key("master_selector"))).isBetween(15L, 20L);
            for (int i = 0; i < 5; i++) {
                assertThat(mine.round()).as("Coordis follows the classic leader, round %d", i).isFalse();
                assertThat(classic.master()).as("classic stays leader, round %d", i).isTrue();
            }
        }
    }

    @Test
    void aLeaderWhoseLastRoundIsATermOldStepsDownLocallyBeforeAskingAgain() throws InterruptedException {
        ManualTicker ticker = new ManualTicker();
        try (Coordis manual = TestClients.builder().url(redis.uri()).ticker(ticker).connect();
             ClassicCandidate other = new ClassicCandidate(Prefixed.key("el:counter:stale"))) {
            CounterElection mine = manual.counterElection("el:counter:stale", Duration.ofSeconds(30));
            assertThat(mine.round()).isTrue();
            assertThat(other.master()).isFalse();
            ticker.advance(Duration.ofSeconds(29));
            assertThat(mine.isLeader()).as("within the term minus drift").isTrue();
            ticker.advance(Duration.ofSeconds(1));
            // Its key is still alive in Redis (no real time passed), yet the stalled leader must not lead:
            // as the classic advice says, it forgets its remembered value before asking again.
            assertThat(mine.isLeader()).isFalse();
            assertThat(mine.round()).isFalse();
            assertThat(mine.remembered()).isZero();
        }
    }

    @Test
    void stepsDownWhenTheCounterWentBackwardsBecauseRedisWasReset() throws InterruptedException {
        CounterElection mine = client.counterElection("el:counter:reset", TERM);
        try (ClassicCandidate other = new ClassicCandidate(Prefixed.key("el:counter:reset"))) {
            assertThat(mine.round()).isTrue();
            for (int i = 0; i < 3; i++) {
                other.master();
                mine.round();
            }
            assertThat(mine.remembered()).isGreaterThan(3);
            redis.server().command("DEL", Prefixed.key("el:counter:reset")); // as after a restart without persistence
            assertThat(other.master()).as("the other candidate gets 1").isTrue();
            assertThat(mine.round()).as("remembered value above the counter: step down").isFalse();
            assertThat(mine.isLeader()).isFalse();
        }
    }

    @Test
    void refusesTermsThatAreNotWholeSecondsAndKeysOfTheWrongKind() {
        assertThatThrownBy(() -> client.counterElection("k", Duration.ofMillis(1500)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("whole number of seconds");
        assertThatThrownBy(() -> client.counterElection(" ", TERM)).isInstanceOf(IllegalArgumentException.class);
        redis.server().command("SET", Prefixed.key("el:counter:text"), "abc");
        CounterElection e = client.counterElection("el:counter:text", TERM);
        assertThatThrownBy(e::round).isInstanceOf(io.coordis.CoordisException.class);
        assertThat(redis.server().command("GET", Prefixed.key("el:counter:text"))).isEqualTo("abc");
    }
}
