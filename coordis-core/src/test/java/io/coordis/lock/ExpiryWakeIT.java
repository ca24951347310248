package io.coordis.lock;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waiters of different clients woken by the holder's expiry (which announces nothing) retry by themselves, each at
 * the expiry plus its own 1-20 ms of jitter: seen by the server, each command timed by {@code MONITOR}. How the
 * retries spread is printed, not asserted: on a loaded machine a stall of the JVM bunches retries whose jitters
 * differ, and scheduling alone spreads them over a few milliseconds without any jitter, so the spread tells the
 * jitter from neither; {@code ReleaseWaiterTest} pins the jitter itself.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExpiryWakeIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final int WAITERS = 6;
    /** {@code <seconds>.<micros> [<db> <client address or lua>] "<command>" ...} */
    private static final Pattern MONITORED = Pattern.compile("^(\\d+)\\.(\\d{6}) \\[\\d+ ([^\\]]+)\\] \"([^\"]+)\"");

    @Test
    void waitersOfSixClientsRetryByThemselvesAfterASilentExpiryNoSoonerThanTheJittersLeast() throws Exception {
        List<Coordis> clients = new ArrayList<>();
        List<CompletableFuture<Optional<Lease>>> waits = new ArrayList<>();
        List<String> monitored = new CopyOnWriteArrayList<>();
        String name = "jitter:expiry";
        try (RespClient monitor = redis.server().client().timeout(Duration.ofSeconds(90))) {
            for (int i = 0; i < WAITERS; i++) {
                Coordis c = TestClients.connect(redis.uri());
                clients.add(c);
                c.lock("jitter:warm-" + i).tryAcquire().orElseThrow().close(); // scripts loaded, connection open
            }
            assertThat(monitor.command("MONITOR")).isEqualTo("OK");
            Thread reader = new Thread(() -> {
                try {
                    while (true) {
                        monitored.add(String.valueOf(monitor.read()));
                    }
                } catch (UncheckedIOException closed) {
                    // the test closed the connection
                }
            }, "monitor-reader");
            reader.setDaemon(true);
            reader.start();

            // a holder that never publishes a release: its value simply expires at a known instant (ms, server clock)
            String key = Prefixed.key(name);
            List<?> time = (List<?>) redis.server().command("TIME");
            long expiresAt = Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000
                    + 5000;
            assertThat(redis.server().command("SET", key, "foreign", "NX", "PXAT", Long.toString(expiresAt)))
                    .isEqualTo("OK");
            for (Coordis c : clients) {
                waits.add(c.lock(name).acquireAsync(Duration.ofSeconds(60)));
            }
            // each waiter tried, listened for releases and tried again: now each sleeps on the TTL it was told
            await("two tries of each of the " + WAITERS + " clients").atMost(Duration.ofSeconds(30))
                    .until(() -> tries(monitored, key, 0).size() == WAITERS
                            && tries(monitored, key, 0).values().stream().allMatch(t -> t.size() >= 2));
            assertThat(tries(monitored, key, 0).values()).as("both first tries of every client came before the expiry")
                    .allSatisfy(t -> assertThat(t.get(1)).isLessThan(expiresAt * 1000));

            // the first try of each client after the expiry: the retry its own timer woke
            Map<String, Long> retryMicros = new TreeMap<>();
            await("a retry of each of the " + WAITERS + " clients after the expiry").atMost(Duration.ofSeconds(30))
                    .until(() -> {
                        tries(monitored, key, expiresAt * 1000).forEach((client, t) -> retryMicros.put(client, t.get(0)));
                        return retryMicros.size() == WAITERS;
                    });
            List<Long> offsets = retryMicros.values().stream().sorted().map(us -> us - expiresAt * 1000).toList();
            System.out.println("retries after the expiry, per client (us): " + offsets);

            assertThat(offsets).as("no retry before expiry + 1 ms, the jitter's least (us after expiry)")
                    .allSatisfy(us -> assertThat(us).isGreaterThanOrEqualTo(1000L));
            // woken by its own timer, not by the end of the 60 s wait
            assertThat(offsets).allSatisfy(us -> assertThat(us).isLessThan(TimeUnit.SECONDS.toMicros(10)));
            await("a winner").atMost(Duration.ofSeconds(10)).until(() -> waits.stream().anyMatch(CompletableFuture::isDone));
            assertThat(waits.stream().filter(w -> w.isDone() && w.join().isPresent()).count()).as("one of them won")
                    .isEqualTo(1);
        } finally {
            waits.forEach(w -> w.cancel(true));
            clients.forEach(Coordis::close);
        }
    }

    /**
     * The times (us, server clock) of each client's script calls on {@code key} at or after {@code fromMicros}, by
     * client address; commands run inside scripts ({@code lua}) are not a client's.
     */
    private static Map<String, List<Long>> tries(List<String> monitored, String key, long fromMicros) {
        Map<String, List<Long>> tries = new TreeMap<>();
        for (String line : monitored) {
            Matcher m = MONITORED.matcher(line);
            if (!m.find() || !line.contains("\"" + key + "\"")) {
                continue;
            }
            long micros = Long.parseLong(m.group(1)) * 1_000_000 + Long.parseLong(m.group(2));
            String client = m.group(3);
            String command = m.group(4).toLowerCase();
            if (micros >= fromMicros && !client.equals("lua") && (command.equals("evalsha") || command.equals("eval"))) {
                tries.computeIfAbsent(client, c -> new ArrayList<>()).add(micros);
            }
        }
        return tries;
    }
}
