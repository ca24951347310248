package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.testkit.Prefixed;

/** Coordis clients for the command line's tests, with the test run's key prefix ({@link Prefixed}). */
final class TestClients {
    private TestClients() {
    }

    static Coordis.Builder builder() {
        return Coordis.builder().keyPrefix(Prefixed.prefix());
    }

    static Coordis connect(String url) {
        return builder().url(url).connect();
    }
}
