package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.testkit.Prefixed;

/** Coordis clients for these tests, with the test run's key prefix, as every test of the build uses. */
final class Clients {
    private Clients() {
    }

    static Coordis connect(String url) {
        return Coordis.builder().url(url).keyPrefix(Prefixed.prefix()).connect();
    }
}
