package io.coordis.testkit.fault;

import org.junit.jupiter.api.Test;

import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NetworkNamespaceTest {
    @Test
    void takesThePreferredSubnetWhenItIsFree() {
        assertThat(NetworkNamespace.pickSubnet(Set.of(1, 2, 40), 17)).isEqualTo(17);
    }

    @Test
    void skipsSubnetsInUseAndWrapsAround() {
        assertThat(NetworkNamespace.pickSubnet(Set.of(17, 18), 17)).isEqualTo(19);
        assertThat(NetworkNamespace.pickSubnet(Set.of(249, 250, 1), 249)).isEqualTo(2);
    }

    @Test
    void saysWhatToDoWhenEverySubnetIsTaken() {
        Set<Integer> all = IntStream.rangeClosed(1, NetworkNamespace.SUBNETS).boxed().collect(Collectors.toSet());
        assertThatThrownBy(() -> NetworkNamespace.pickSubnet(all, 5))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("in use")
                .hasMessageContaining("ip netns del");
        assertThatThrownBy(() -> NetworkNamespace.pickSubnet(Set.of(), 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
