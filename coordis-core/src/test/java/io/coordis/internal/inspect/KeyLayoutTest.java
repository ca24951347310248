package io.coordis.internal.inspect;

import io.coordis.internal.election.ElectionLayout;
import io.coordis.internal.lock.LockLayout;
import io.coordis.internal.queue.QueueLayout;
import io.coordis.internal.signal.SignalLayout;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class KeyLayoutTest {

    @Test
    void recognisesDerivedKeysOfWrappedAndHashTaggedNames() {
        assertThat(KeyLayout.derived("{orders}:fence")).contains(new KeyLayout.Derived("orders", "fence"));
        assertThat(KeyLayout.derived("{a:b}:holder")).contains(new KeyLayout.Derived("a:b", "holder"));
        assertThat(KeyLayout.derived("{jobs}:hb:c-1")).contains(new KeyLayout.Derived("jobs", "hb:c-1"));
        assertThat(KeyLayout.derived("{jobs}:proc:c-1:3")).contains(new KeyLayout.Derived("jobs", "proc:c-1:3"));
        assertThat(KeyLayout.derived("{jobs}:delayed:data")).contains(new KeyLayout.Derived("jobs", "delayed:data"));
        assertThat(KeyLayout.derived("job{eu}s:dead")).contains(new KeyLayout.Derived("job{eu}s", "dead"));
        assertThat(KeyLayout.isDerived(LockLayout.RESTART_GUARD_MARKER)).isTrue();
        assertThat(KeyLayout.isDerived("app:" + LockLayout.RESTART_GUARD_MARKER)).as("after a key prefix").isTrue();
    }

    @Test
    void namesTheOwnerOfAPrimitivesKey() {
        assertThat(KeyLayout.owner("{jobs}:consumers", QueueLayout::registryKey)).contains("jobs");
        assertThat(KeyLayout.owner("a{b}c:event", SignalLayout::eventKey)).contains("a{b}c");
        assertThat(KeyLayout.owner("{orders}:released", LockLayout::releasedChannel)).contains("orders");
        assertThat(KeyLayout.owner("{orders}:released", ElectionLayout::changedChannel)).isEmpty();
        assertThat(KeyLayout.owner("orders:released", LockLayout::releasedChannel)).as("a user's key").isEmpty();
    }

    @Test
    void leavesUsersOwnKeysAlone() {
        assertThat(KeyLayout.derived("orders:fence")).as("not wrapped, no tag: a user's key").isEmpty();
        assertThat(KeyLayout.derived("orders:42")).isEmpty();
        assertThat(KeyLayout.derived("{orders}:other")).isEmpty();
        assertThat(KeyLayout.derived("{orders}:hb:")).isEmpty();
        assertThat(KeyLayout.derived("{}:fence")).isEmpty();
    }
}
