package io.coordis;

import io.coordis.testkit.Prefixed;

import java.util.List;

/**
 * Coordis clients for tests: with the test run's key prefix ({@link Prefixed}), so that under the least-privilege
 * pass every primitive runs as a user limited to that prefix. Without a prefix, plain {@link Coordis#connect}.
 */
public final class TestClients {
    private TestClients() {
    }

    public static Coordis.Builder builder() {
        return Coordis.builder().keyPrefix(Prefixed.prefix());
    }

    public static Coordis connect(String url) {
        return builder().url(url).connect();
    }

    public static Coordis connect(List<String> urls) {
        return builder().urls(urls).connect();
    }
}
