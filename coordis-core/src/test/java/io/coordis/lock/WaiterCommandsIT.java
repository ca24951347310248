package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a waiter costs Redis while it waits: counted by the server itself ({@code INFO commandstats}, which also
 * counts the commands a script runs), with the waiter's client the only one talking to Redis. The holder is a raw
 * {@code SET NX PX} written before the count starts, so no renewal of a holder pollutes it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class WaiterCommandsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** The script calls: a waiter's tries. */
    private static final Pattern SCRIPTS = Pattern.compile("evalsha|eval");
    /** The counting's own commands, left out of every count ({@code pubsub} too, by its prefix). */
    private static final Set<String> OWN = Set.of("info", "auth");

    @Test
    void aWaiterSendsTheSameFewCommandsWhetherTheHolderKeepsTheLockThreeSecondsOrTen() throws Exception {
        try (Coordis waiter = TestClients.connect(redis.uri())) {
            // scripts loaded, command and pub/sub connections open: the measured waits pay for none of that
            waitBehindForeignHolder(waiter, "quiet:warm", Duration.ofMillis(300));

            Map<String, Long> shortWait = waitBehindForeignHolder(waiter, "quiet:short", Duration.ofSeconds(3));
            Map<String, Long> longWait = waitBehindForeignHolder(waiter, "quiet:long", Duration.ofSeconds(10));
            System.out.printf("commands of a 3 s wait: %s%ncommands of a 10 s wait: %s%n", shortWait, longWait);

            // a try when it starts, one more once it listens for releases, and the one that is granted
            assertThat(tries(longWait)).as("acquire scripts run over the 10 s wait: %s", longWait).isBetween(2L, 3L);
            // those three and SUBSCRIBE, UNSUBSCRIBE on the release channel
            assertThat(sentByTheClient(longWait)).as("commands the waiter sent over the 10 s wait: %s", longWait)
                    .isLessThanOrEqualTo(6L);
            // every command, those inside the scripts too: the longer wait costs nothing more
            assertThat(total(longWait)).as("10 s wait %s against 3 s wait %s", longWait, shortWait)
                    .isLessThanOrEqualTo(total(shortWait));
        }
    }

    /**
     * Holds {@code name} with a foreign value for {@code hold} (a raw {@code SET NX PX}, never renewed), has
     * {@code waiter} acquire it with {@code acquire(30 s)}, and answers the commands Redis ran from the start of the
     * wait until the waiter held the lock and had stopped listening for releases. Checks that the waiter got the
     * lock only once the foreign value had expired, and lets it go.
     */
    private static Map<String, Long> waitBehindForeignHolder(Coordis waiter, String name, Duration hold)
            throws InterruptedException {
        String key = Prefixed.key(name);
        long set = System.nanoTime();
        assertThat(redis.server().command("SET", key, "foreign", "NX", "PX", Long.toString(hold.toMillis())))
                .isEqualTo("OK");
        Map<String, Long> before = calls(redis.server());

        Lease lease = waiter.lock(name).acquire(Duration.ofSeconds(30))
                .orElseThrow(() -> new AssertionError("no lock within 30 s behind a " + hold.toMillis() + " ms holder"));
        Duration waited = Duration.ofNanos(System.nanoTime() - set);
        // the unsubscription reaches Redis shortly after the wait returned
        await().atMost(Duration.ofSeconds(10)).until(() -> subscribers(Prefixed.derived(name, "released")) == 0);
        Map<String, Long> after = calls(redis.server());

        assertThat(waited).as("granted only once the foreign value expired").isGreaterThanOrEqualTo(hold);
        assertThat(redis.server().command("GET", key)).isEqualTo(lease.token());
        System.out.printf("'%s': held %d ms by a foreign value, acquired after %d ms%n", name, hold.toMillis(),
                waited.toMillis());
        lease.release();
        return delta(before, after);
    }

    /** Calls per command name since the server started, without the counting's own. */
    private static Map<String, Long> calls(RedisServer server) {
        Map<String, Long> calls = new TreeMap<>();
        Pattern count = Pattern.compile("calls=(\\d+)");
        server.info("commandstats").forEach((stat, value) -> {
            String cmd = stat.substring("cmdstat_".length());
            Matcher m = count.matcher(value);
            if (m.find() && !OWN.contains(cmd) && !cmd.startsWith("pubsub")) {
                calls.put(cmd, Long.parseLong(m.group(1)));
            }
        });
        return calls;
    }

    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((cmd, n) -> {
            long d = n - before.getOrDefault(cmd, 0L);
            if (d != 0) {
                delta.put(cmd, d);
            }
        });
        return delta;
    }

    private static long tries(Map<String, Long> calls) {
        return calls.entrySet().stream().filter(e -> SCRIPTS.matcher(e.getKey()).matches())
                .mapToLong(Map.Entry::getValue).sum();
    }

    /**
     * The commands the client sent: script calls plus every command a script cannot run ((un)subscribe, ping,
     * client...); the commands the acquire script runs (set, get, pttl, hget, incrby, hset...) are left out.
     */
    private static long sentByTheClient(Map<String, Long> calls) {
        List<String> scriptable = List.of("set", "get", "pttl", "type", "hget", "hset", "incrby", "del", "publish",
                "time", "pexpire", "exists");
        return calls.entrySet().stream().filter(e -> !scriptable.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue).sum();
    }

    private static long total(Map<String, Long> calls) {
        return calls.values().stream().mapToLong(Long::longValue).sum();
    }

    private static long subscribers(String channel) {
        List<?> reply = (List<?>) redis.server().command("PUBSUB", "NUMSUB", channel);
        return (Long) reply.get(1);
    }
}
