package io.coordis.internal.lock;

import io.coordis.NodeVote;
import io.coordis.lock.LockOptions;
import io.coordis.lock.QuorumUnavailableException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Redlock's arithmetic without Redis: the majority, the "busy" rule, validity, and what failures say. */
class RedlockTest {

    @Test
    void quorumIsAStrictMajority() {
        assertThat(Quorum.of(3)).isEqualTo(2);
        assertThat(Quorum.of(4)).isEqualTo(3);
        assertThat(Quorum.of(5)).isEqualTo(3);
        assertThat(Quorum.of(6)).isEqualTo(4);
        assertThat(Quorum.of(7)).isEqualTo(4);
        for (int n = 3; n <= 7; n++) {
            // two majorities always share a node; a majority minus one never is one
            assertThat(2 * Quorum.of(n)).as("n=%d", n).isGreaterThan(n);
            assertThat(2 * (Quorum.of(n) - 1)).as("n=%d", n).isLessThanOrEqualTo(n);
        }
    }

    @Test
    void busyOnlyWhenHeldAnswersAloneRuleOutEveryMajority() {
        for (int n = 3; n <= 7; n++) {
            for (int held = 0; held <= n; held++) {
                List<NodeVote> votes = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    votes.add(new NodeVote("h:" + i, i < held ? NodeVote.Vote.HELD_BY_OTHER : NodeVote.Vote.TIMEOUT, ""));
                }
                // the free nodes (n - held) cannot form a majority exactly when held > n - quorum
                boolean noMajorityLeft = n - held < Quorum.of(n);
                assertThat(Quorum.busy(votes)).as("n=%d held=%d", n, held).isEqualTo(noMajorityLeft);
                assertThat(Quorum.count(votes, NodeVote.Vote.HELD_BY_OTHER)).isEqualTo(held);
            }
        }
    }

    @Test
    void validityIsTtlMinusDriftAllowance() {
        LockOptions ten = LockOptions.defaults().withTtl(Duration.ofSeconds(10));
        assertThat(Duration.ofNanos(ten.validityNanos(ten.ttl()))).isEqualTo(Duration.ofMillis(10_000 - 100 - 2));
        LockOptions drifty = ten.withClockDriftFactor(0.1);
        assertThat(Duration.ofNanos(drifty.validityNanos(drifty.ttl()))).isEqualTo(Duration.ofMillis(10_000 - 1_000 - 2));
        LockOptions exact = ten.withClockDriftFactor(0);
        assertThat(Duration.ofNanos(exact.validityNanos(exact.ttl()))).isEqualTo(Duration.ofMillis(10_000 - 2));
        assertThat(Duration.ofNanos(ten.validityNanos(Duration.ofMillis(100)))).isEqualTo(Duration.ofMillis(100 - 1 - 2));
    }

    @Test
    void nodeTimeoutDefaultsToATenthOfTheTtlAtMostFiftyMilliseconds() {
        assertThat(LockOptions.defaults().withTtl(Duration.ofMillis(300)).nodeTimeout()).isEqualTo(Duration.ofMillis(30));
        assertThat(LockOptions.defaults().withTtl(Duration.ofSeconds(30)).nodeTimeout()).isEqualTo(Duration.ofMillis(50));
        assertThat(LockOptions.defaults().withNodeTimeout(Duration.ofMillis(7)).nodeTimeout()).isEqualTo(Duration.ofMillis(7));
    }

    @Test
    void quorumFailureNamesEveryFailedNodeAndItsVote() {
        List<NodeVote> votes = List.of(
                new NodeVote("10.0.0.1:7001", NodeVote.Vote.ACQUIRED, ""),
                new NodeVote("10.0.0.2:7002", NodeVote.Vote.TIMEOUT, "no reply within 50 ms"),
                new NodeVote("10.0.0.3:7003", NodeVote.Vote.ERROR, "Connection refused"),
                new NodeVote("10.0.0.4:7004", NodeVote.Vote.REFUSED_RECENT_RESTART, "up less than 30s"),
                new NodeVote("10.0.0.5:7005", NodeVote.Vote.HELD_BY_OTHER, "ttl 900ms"));
        QuorumUnavailableException e = new QuorumUnavailableException("cannot lock 'orders'", 3, votes);

        assertThat(e.getMessage())
                .contains("cannot lock 'orders'")
                .contains("fewer than 3 of 5")
                .contains("10.0.0.2:7002 timeout (no reply within 50 ms)")
                .contains("10.0.0.3:7003 error (Connection refused)")
                .contains("10.0.0.4:7004 refused recent restart (up less than 30s)")
                .contains("10.0.0.5:7005 held by other (ttl 900ms)")
                .contains("failed nodes: 10.0.0.2:7002, 10.0.0.3:7003");
        assertThat(e.votes()).isEqualTo(votes);
    }
}
