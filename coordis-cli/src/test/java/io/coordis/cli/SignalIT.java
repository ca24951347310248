package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.cli.support.ExitCodes;
import io.coordis.signal.Signal;
import io.coordis.signal.Waiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis signal} and {@code coordis wait}, each in its own JVM, against a real redis-server. Every
 * test waits until Redis reports the waiter subscribed before it signals: pub/sub keeps no messages.
 */
class SignalIT {
    private static final Duration SUBSCRIBE_TIMEOUT = Duration.ofSeconds(20);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis client;

    @BeforeEach
    void connect() {
        client = TestClients.connect(redis.uri());
    }

    @AfterEach
    void disconnect() {
        client.close();
    }

    private static CliProcess cli(String command, String... args) {
        String[] all = new String[args.length + 3];
        all[0] = command;
        all[1] = "-u";
        all[2] = redis.uri();
        System.arraycopy(args, 0, all, 3, args.length);
        return CliProcess.start(all);
    }

    /** Runs {@code coordis signal args...} to the end; answers its stdout. */
    private static String signal(String... args) {
        try (CliProcess signal = cli("signal", args)) {
            assertThat(signal.exitCode()).as(signal.stderr()).isZero();
            return signal.stdout();
        }
    }

    private static Object redis(String... command) {
        return redis.server().command(command);
    }

    private static long subscribers(RedisServer server, String channel) {
        return (Long) ((List<?>) server.command("PUBSUB", "NUMSUB", Prefixed.key(channel))).get(1);
    }

    /** Blocks until {@code condition} holds, failing early if a waiter exits meanwhile. */
    private static void awaitRedis(String what, Supplier<Boolean> condition, CliProcess... waiters) {
        long deadline = System.nanoTime() + SUBSCRIBE_TIMEOUT.toNanos();
        while (!condition.get()) {
            for (CliProcess waiter : waiters) {
                if (!waiter.isAlive()) {
                    throw new AssertionError("coordis exited before " + what + "; status " + waiter.exitCode()
                            + "\nstdout:\n" + waiter.stdout() + "\nstderr:\n" + waiter.stderr());
                }
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + SUBSCRIBE_TIMEOUT + ": " + what);
            }
            CliProcess.sleep(20);
        }
    }

    private static void awaitSubscribed(String channel, CliProcess waiter) {
        awaitRedis("'" + channel + "' has a subscriber", () -> subscribers(redis.server(), channel) == 1, waiter);
    }

    @Test
    void signalWakesAWaiterWhichPrintsThePayload() {
        try (CliProcess waiter = cli("wait", "it:done", "--timeout", "10s")) {
            awaitSubscribed("it:done", waiter);
            try (CliProcess signal = cli("signal", "it:done", "hello")) {
                assertThat(signal.exitCode()).isZero();
                assertThat(signal.stdout()).isEqualTo("1\n");
                assertThat(signal.stderr()).isEmpty();
            }
            assertThat(waiter.exitCode()).isZero();
            assertThat(waiter.stdout()).isEqualTo("hello\n");
            assertThat(waiter.stderr()).isEqualTo("coordis: waiting up to 10s for a signal on 'it:done'\n");
        }
    }

    @Test
    void timeoutExits1WithNothingOnStdout() {
        try (CliProcess waiter = cli("wait", "it:never", "--timeout", "300ms")) {
            assertThat(waiter.exitCode()).isEqualTo(ExitCodes.NO_SIGNAL);
            assertThat(waiter.stdout()).isEmpty();
            assertThat(waiter.stderr()).endsWith("coordis: no signal on 'it:never' within 300ms\n");
        }
        try (CliProcess quiet = cli("wait", "-q", "it:never", "--timeout", "100ms")) {
            assertThat(quiet.exitCode()).isEqualTo(ExitCodes.NO_SIGNAL);
            assertThat(quiet.stdout()).isEmpty();
            assertThat(quiet.stderr()).isEmpty();
        }
    }

    @Test
    void rawPublishWakesTheWaiter() {
        try (CliProcess waiter = cli("wait", "-q", "it:raw", "--timeout", "10s")) {
            awaitSubscribed("it:raw", waiter);
            assertThat(redis("PUBLISH", Prefixed.key("it:raw"), "from redis-cli")).isEqualTo(1L);
            assertThat(waiter.exitCode()).isZero();
            assertThat(waiter.stdout()).isEqualTo("from redis-cli\n");
        }
    }

    @Test
    void anyOfSeveralChannelsPrintsChannelAndPayload() {
        try (CliProcess waiter = cli("wait", "-q", "it:x", "it:y", "--timeout", "10s")) {
            awaitRedis("both channels have a subscriber",
                    () -> subscribers(redis.server(), "it:x") + subscribers(redis.server(), "it:y") == 2, waiter);
            redis("PUBLISH", Prefixed.key("it:y"), "Y");
            assertThat(waiter.exitCode()).isZero();
            assertThat(waiter.stdout()).isEqualTo("it:y\tY\n");
        }
    }

    @Test
    void allPrintsOneLinePerChannelInTheOrderGiven() {
        try (CliProcess waiter = cli("wait", "--all", "it:a", "it:b", "--timeout", "10s")) {
            awaitRedis("both channels have a subscriber",
                    () -> subscribers(redis.server(), "it:a") + subscribers(redis.server(), "it:b") == 2, waiter);
            redis("PUBLISH", Prefixed.key("it:b"), "B");
            redis("PUBLISH", Prefixed.key("it:b"), "B again");
            CliProcess.sleep(300);
            assertThat(waiter.isAlive()).as("still waiting for it:a").isTrue();
            redis("PUBLISH", Prefixed.key("it:a"), "A");
            assertThat(waiter.exitCode()).isZero();
            assertThat(waiter.stdout()).isEqualTo("it:a\tA\nit:b\tB\n");
        }
    }

    @Test
    void patternPrintsTheMatchingChannel() {
        try (CliProcess waiter = cli("wait", "-q", "--pattern", "it:jobs:*", "--timeout", "10s")) {
            awaitRedis("a pattern subscription", () -> (Long) redis("PUBSUB", "NUMPAT") == 1L, waiter);
            redis("PUBLISH", Prefixed.key("it:other"), "not this");
            redis("PUBLISH", Prefixed.key("it:jobs:7"), "done");
            assertThat(waiter.exitCode()).isZero();
            assertThat(waiter.stdout()).isEqualTo("it:jobs:7\tdone\n");
        }
    }

    @Test
    void payloadFromStandardInput() throws InterruptedException {
        try (Waiter waiter = client.signals().waiter("it:stdin");
             CliProcess signal = CliProcess.startWithInput("two\nlines ✓\n", "signal", "-u", redis.uri(), "it:stdin")) {
            assertThat(signal.exitCode()).as(signal.stderr()).isZero();
            assertThat(signal.stdout()).isEqualTo("1\n");
            assertThat(waiter.await(Duration.ofSeconds(10))).contains(new Signal("it:stdin", "two\nlines ✓"));
        }
        try (Waiter waiter = client.signals().waiter("it:dash");
             CliProcess signal = CliProcess.startWithInput("x\n", "signal", "-u", redis.uri(), "it:dash", "-")) {
            assertThat(signal.exitCode()).as(signal.stderr()).isZero();
            assertThat(waiter.await(Duration.ofSeconds(10))).contains(new Signal("it:dash", "x"));
        }
    }

    @Test
    void latchedSignalIsSeenByALaterWaiterAtOnce() {
        try (CliProcess signal = cli("signal", "--latch", "60s", "it:ready", "v1")) {
            assertThat(signal.exitCode()).as(signal.stderr()).isZero();
            assertThat(signal.stdout()).as("nobody listened yet").isEqualTo("0\n");
        }
        assertThat((Long) redis("PTTL", Prefixed.derived("it:ready", "event"))).isBetween(1L, 60_000L);
        try (CliProcess waiter = cli("wait", "--latched", "it:ready", "--timeout", "0")) {
            assertThat(waiter.exitCode()).as(waiter.stderr()).isZero();
            assertThat(waiter.stdout()).isEqualTo("v1\n");
        }
        try (CliProcess unsignalled = cli("wait", "-q", "--latched", "it:not-yet", "--timeout", "0")) {
            assertThat(unsignalled.exitCode()).isEqualTo(ExitCodes.NO_SIGNAL);
            assertThat(unsignalled.stdout()).isEmpty();
        }
    }

    @Test
    void oneReachesExactlyOneOfTheUnicastWaiters() {
        try (CliProcess first = cli("wait", "-q", "--unicast", "it:work", "--timeout", "20s");
             CliProcess second = cli("wait", "-q", "--unicast", "it:work", "--timeout", "20s")) {
            awaitRedis("two unicast waiters", () -> unicastWaiters("it:work") == 2, first, second);
            assertThat(signal("--one", "it:work", "job1")).isEqualTo("1\n");

            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (first.isAlive() && second.isAlive() && System.nanoTime() < deadline) {
                CliProcess.sleep(20);
            }
            CliProcess done = first.isAlive() ? second : first;
            CliProcess waiting = done == first ? second : first;
            assertThat(done.exitCode()).isZero();
            assertThat(done.stdout()).isEqualTo("job1\n");
            CliProcess.sleep(300);
            assertThat(waiting.isAlive()).as("the other waiter got nothing").isTrue();
            assertThat(waiting.stdout()).isEmpty();

            awaitRedis("one unicast waiter left", () -> unicastWaiters("it:work") == 1, waiting);
            assertThat(signal("--one", "it:work", "job2")).isEqualTo("1\n");
            assertThat(waiting.exitCode()).isZero();
            assertThat(waiting.stdout()).isEqualTo("job2\n");
        }
        awaitRedis("no unicast waiter left", () -> unicastWaiters("it:work") == 0);
        assertThat(signal("--one", "it:work", "job3")).as("nobody waits").isEqualTo("0\n");
    }

    private static long unicastWaiters(String channel) {
        return ((List<?>) redis("PUBSUB", "CHANNELS", Prefixed.key(channel + "?*"))).size();
    }

    @Test
    void listensOnReplicasToo() {
        try (RedisServer replica = RedisServer.builder().replicaOf(redis.server()).start();
             CliProcess waiter = cli("wait", "-q", "--replica", replica.uri(), "it:replicated", "--timeout", "10s")) {
            awaitRedis("subscribed on the master and the replica", () -> subscribers(redis.server(), "it:replicated")
                    + subscribers(replica, "it:replicated") == 2, waiter);
            // Published on the replica alone (pub/sub does not flow from replica to master): only the
            // replica's subscription can deliver it.
            assertThat(replica.command("PUBLISH", Prefixed.key("it:replicated"), "via replica")).isEqualTo(1L);
            assertThat(waiter.exitCode()).isZero();
            assertThat(waiter.stdout()).isEqualTo("via replica\n");
        }
    }

    @Test
    void ctrlCEndsAnEndlessWaitWith130Quietly() {
        try (CliProcess waiter = cli("wait", "it:forever")) {
            awaitSubscribed("it:forever", waiter);
            // The line is printed once the subscription is confirmed, which Redis can show first.
            waiter.awaitStderr("waiting for a signal on 'it:forever'\n");
            waiter.interrupt();
            assertThat(waiter.exitCode()).isEqualTo(128 + 2);
            assertThat(waiter.stdout()).isEmpty();
            assertThat(waiter.stderr()).isEqualTo("coordis: waiting for a signal on 'it:forever'\n");
        }
    }

    @Test
    void redisDownExits69WithOneReadableLine() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        String url = "redis://127.0.0.1:" + closedPort;
        try (CliProcess waiter = CliProcess.start("wait", "-u", url, "it:down", "--timeout", "1s");
             CliProcess signal = CliProcess.start("signal", "-u", url, "it:down", "x")) {
            for (CliProcess cli : List.of(waiter, signal)) {
                assertThat(cli.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
                assertThat(cli.stdout()).isEmpty();
                assertThat(cli.stderr()).startsWith("coordis: Redis at 127.0.0.1:" + closedPort + " is unavailable")
                        .doesNotContain("\tat ");
                assertThat(cli.stderr().lines()).hasSize(1);
            }
        }
    }
}
