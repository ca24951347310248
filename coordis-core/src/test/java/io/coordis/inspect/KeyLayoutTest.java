package io.coordis.inspect;

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
        assertThat(KeyLayout.isDerived(KeyLayout.REDLOCK_MARKER)).isTrue();
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
