package io.coordis.bench;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RotationTest {
    private static final List<String> ABC = List.of("A", "B", "C");

    @Test
    void roundsRotateTheOrderByOnePlaceEach() {
        assertThat(Rotation.order(ABC, 0)).containsExactly("A", "B", "C");
        assertThat(Rotation.order(ABC, 1)).containsExactly("B", "C", "A");
        assertThat(Rotation.order(ABC, 2)).containsExactly("C", "A", "B");
        assertThat(Rotation.order(ABC, 3)).containsExactly("A", "B", "C");
    }

    @Test
    void overAsManyRoundsAsImplementationsEachRunsInEachPositionOnce() {
        List<String> five = List.of("coordis", "r1", "r2", "l1", "l2");
        Map<String, Integer> positionsSeen = new HashMap<>();
        for (int round = 0; round < five.size(); round++) {
            List<String> order = Rotation.order(five, round);
            assertThat(order).containsExactlyInAnyOrderElementsOf(five);
            for (int p = 0; p < order.size(); p++) {
                positionsSeen.merge(order.get(p) + "@" + p, 1, Integer::sum);
            }
        }
        assertThat(positionsSeen).hasSize(25).allSatisfy((k, n) -> assertThat(n).as(k).isEqualTo(1));
    }

    @Test
    void aNegativeRoundIsRefused() {
        assertThatThrownBy(() -> Rotation.order(ABC, -1)).hasMessageContaining("round must be 0 or more, got -1");
    }
}
