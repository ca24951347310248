package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static io.coordis.cli.TestJson.list;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code --key-prefix} (and {@code $COORDIS_KEY_PREFIX}): the command line uses the same keys as a library client
 * with that prefix; {@code ls} and {@code inspect} look under it only. The prefix given is under the test run's
 * prefix ({@link Prefixed}), as the whole run keeps to it.
 */
class KeyPrefixCliIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private final InProcess cli = new InProcess();
    private Coordis billing;

    @BeforeEach
    void connect() {
        redis.server().flushAll();
        billing = TestClients.builder().url(redis.uri()).keyPrefix(Prefixed.key("billing:")).connect();
    }

    @AfterEach
    void disconnect() {
        billing.close();
    }

    private static List<String> names(String json) {
        return list(TestJson.object(json).get("items")).stream().map(TestJson::map).map(m -> (String) m.get("name"))
                .sorted().collect(Collectors.toList());
    }

    @Test
    void pushesAndLooksUnderThePrefix() throws Exception {
        Lease held = billing.lock("orders", LockOptions.defaults().withTtl(Duration.ofSeconds(30))).tryAcquire()
                .orElseThrow();
        try (Coordis plain = TestClients.connect(redis.uri())) {
            plain.lock("orders", LockOptions.defaults().withTtl(Duration.ofSeconds(30))).tryAcquire().orElseThrow();
        } // another application's "orders", held by its TTL

        assertThat(cli.run("--key-prefix", Prefixed.key("billing:"), "queue", "push", "-u", redis.uri(), "jobs", "a",
                "b")).as(cli.err()).isZero();
        assertThat(redis.server().command("LRANGE", Prefixed.key("billing:jobs"), "0", "-1"))
                .isEqualTo(List.of("b", "a"));
        assertThat(billing.queue("jobs").depth()).isEqualTo(2);

        assertThat(cli.run(Map.of(CoordisCommand.KEY_PREFIX_ENV, Prefixed.key("billing:")), "ls", "locks", "-o",
                "json", "-u", redis.uri())).as(cli.err()).isZero();
        assertThat(names(cli.out())).containsExactly(Prefixed.key("billing:orders"));

        assertThat(cli.run("ls", "locks", "-o", "json", "-u", redis.uri())).as(cli.err()).isZero();
        assertThat(names(cli.out())).containsExactly(Prefixed.key("billing:orders"), Prefixed.key("orders"));

        assertThat(cli.run("inspect", "lock", "orders", "--key-prefix", Prefixed.key("billing:"), "-o", "json", "-u",
                redis.uri())).as(cli.err()).isZero();
        Map<String, Object> lock = TestJson.object(cli.out());
        assertThat(lock.get("name")).isEqualTo(Prefixed.key("billing:orders"));
        assertThat(lock.get("fence")).isEqualTo(held.fencingToken());
    }

    @Test
    void aBadPrefixIsAUsageErrorNamingTheOption() {
        int status = cli.run("--key-prefix", "bill*", "queue", "push", "-u", redis.uri(), "jobs", "a");
        cli.assertUsageError(status, "--key-prefix: key prefix 'bill*' contains '*'", "coordis queue push");
        assertThat(redis.server().command("KEYS", "*")).isEqualTo(List.of());
    }
}
