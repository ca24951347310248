package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.cli.Main;
import io.coordis.cli.support.GlobalOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.lock.Lease;
import io.coordis.lock.Permit;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.Outcome;
import io.coordis.queue.ReliableQueue;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.jr.ob.JSON;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real Boot web application with Actuator against a real redis-server, configured as an application that
 * already uses Spring Data Redis is ({@code spring.data.redis.*}, no {@code coordis.urls}): the health indicator
 * follows the server down and back up, {@code /actuator/coordis} shows what {@code coordis ls} shows, and the
 * client's meters are in {@code /actuator/metrics}.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "management.endpoints.web.exposure.include=health,coordis,metrics",
        "coordis.metrics.tag-names=report", "coordis.metrics.queues=metered", "coordis.metrics.poll-interval=200ms",
        "management.endpoint.health.show-details=always",
        // Spring Data Redis's own indicator runs INFO, which the least-privilege CI user may not: judge Coordis's alone
        "management.health.redis.enabled=false"})
@DirtiesContext
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ActuatorIT {
    private static final RedisServer REDIS = RedisServer.builder().start();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.host", REDIS::host);
        registry.add("spring.data.redis.port", REDIS::port);
        registry.add("coordis.key-prefix", () -> Prefixed.prefix() + "app:");
    }

    @AfterAll
    static void stopRedis() {
        REDIS.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    Coordis coordis;

    @Test
    @Order(1)
    void endpointListsLocksElectionsQueuesAndSignals() throws Exception {
        ReliableQueue queue = coordis.reliableQueue("orders");
        queue.push("one");
        queue.push("two");
        queue.push("three");
        queue.push("four");
        LeaderElection election = coordis.election("scheduler");
        try (Lease lease = coordis.lock("report").acquire(Duration.ofSeconds(2)).orElseThrow();
             Consumer consumer = queue.consumer()) {
            Leadership leadership = election.campaign(Duration.ofSeconds(2)).orElseThrow();
            assertThat(consumer.take(Duration.ofSeconds(2)).orElseThrow().ack()).isEqualTo(Outcome.ACKED);
            Delivery delivery = consumer.take(Duration.ofSeconds(2)).orElseThrow();
            assertThat(delivery).isNotNull();

            Map<String, Object> view = get("/actuator/coordis");
            String prefix = Prefixed.prefix() + "app:";
            assertThat(view.get("match")).isEqualTo(prefix + "*");
            assertThat(((Number) view.get("at")).longValue()).as("epoch milliseconds, as ls -o json writes them")
                    .isBetween(System.currentTimeMillis() - 60_000, System.currentTimeMillis());
            assertThat(view.keySet()).containsExactly("match", "at", "locks", "elections", "queues", "signals",
                    "semaphores");

            Map<String, Object> lock = only(view, "locks");
            assertThat(lock).containsEntry("name", prefix + "report").containsEntry("mode", "single-node")
                    .containsKey("holder").containsKey("ttlMs").doesNotContainKey("token");
            assertThat(((Number) lock.get("fence")).longValue()).isEqualTo(lease.fencingToken());
            assertThat((String) map(lock.get("holder")).get("id")).contains("@");
            assertThat(((Number) lock.get("ttlMs")).longValue()).isBetween(1L, 30_000L);
            assertThat(lock.get("leaseTtlMs")).isEqualTo(30_000);

            Map<String, Object> leader = only(view, "elections");
            assertThat(leader).containsEntry("name", prefix + "scheduler")
                    .containsEntry("leader", election.candidateId());
            assertThat(((Number) leader.get("term")).longValue()).isEqualTo(leadership.term());

            Map<String, Object> orders = only(view, "queues");
            assertThat(orders).containsEntry("name", prefix + "orders").containsEntry("depth", 2)
                    .containsEntry("inFlight", 1).containsEntry("deadLetters", 0).containsEntry("settled", 1)
                    .containsKey("oldestReadyAgeMs");
            assertThat((List<?>) orders.get("consumers")).hasSize(1);
            assertThat(view.get("signals")).isInstanceOf(List.class);
            assertThat(view.get("semaphores")).isInstanceOf(List.class);

            Map<String, Object> matched = get("/actuator/coordis?match=" + URLEncoder.encode("rep*", StandardCharsets.UTF_8));
            assertThat(matched.get("match")).isEqualTo(prefix + "rep*");
            assertThat((List<?>) matched.get("locks")).hasSize(1);
            assertThat((List<?>) matched.get("elections")).isEmpty();
            assertThat((List<?>) matched.get("queues")).isEmpty();

            assertThat(status("/actuator/coordis?match=" + URLEncoder.encode("[", StandardCharsets.UTF_8)))
                    .isEqualTo(400);
            consumer.ack(List.of(delivery));
            election.resign();
        } finally {
            election.close();
        }
    }

    @Test
    @Order(4)
    void theEndpointGivesTheDocumentsOfLsOutputJsonWithoutTheirTokens() throws Exception {
        String prefix = Prefixed.prefix() + "app:";
        try (Lease lease = coordis.lock("ledger").acquire(Duration.ofSeconds(2)).orElseThrow()) {
            Map<String, Object> actuator = only(get("/actuator/coordis?match=ledger"), "locks");

            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = Main.run(new String[] {"ls", "locks", "--match", "ledger", "-o", "json", "-u", REDIS.uri()},
                    new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                    Map.of(GlobalOptions.KEY_PREFIX_ENV, prefix));
            assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
            Map<String, Object> ls = only(JSON.std.mapFrom(out.toString(StandardCharsets.UTF_8)), "items");

            assertThat(ls).containsEntry("name", prefix + "ledger").containsEntry("token", lease.token());
            assertThat(map(list(ls.get("perNode")).get(0))).containsEntry("token", lease.token());
            assertThat(stable(actuator)).as("the same document, apart from the tokens")
                    .isEqualTo(stable(without(ls, "token")));
        }
    }

    @Test
    @Order(5)
    void noAnswerOfTheEndpointHoldsAToken() throws Exception {
        String foreign = "foreign-secret-5d2a";
        try (Lease lease = coordis.lock("vault").acquire(Duration.ofSeconds(2)).orElseThrow();
             Lease read = coordis.readWriteLock("shelf").readLock().acquire(Duration.ofSeconds(2)).orElseThrow();
             Permit permit = coordis.semaphore("pool", 2).tryAcquire().orElseThrow();
             RespClient raw = RespClient.connect(REDIS)) {
            raw.command("SET", Prefixed.prefix() + "app:foreign", foreign, "NX", "PX", "60000");
            String body = body("/actuator/coordis");
            Map<String, Object> view = JSON.std.mapFrom(body);
            assertThat(names(view.get("locks"))).as("the objects are shown")
                    .contains(Prefixed.prefix() + "app:vault", Prefixed.prefix() + "app:shelf",
                            Prefixed.prefix() + "app:foreign");
            assertThat(names(view.get("semaphores"))).contains(Prefixed.prefix() + "app:pool");
            assertThat(fields(view)).doesNotContain("token");
            for (String token : List.of(lease.token(), read.token(), permit.token(), foreign)) {
                assertThat(body).as("a token leaked").doesNotContain(token);
            }
            raw.command("DEL", Prefixed.prefix() + "app:foreign");
        }
    }

    @Test
    @Order(2)
    void healthIsDownWhileRedisIsStoppedAndUpWhenItIsBack() throws Exception {
        Map<String, Object> up = get("/actuator/health/coordis");
        assertThat(up).containsEntry("status", "UP");
        assertThat(status("/actuator/health")).isEqualTo(200);
        @SuppressWarnings("unchecked")
        Map<String, Object> details = (Map<String, Object>) up.get("details");
        assertThat(details).containsEntry("address", REDIS.address()).containsKey("findings");
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> nodes = (List<Map<String, Object>>) details.get("nodes");
        assertThat(nodes).singleElement().satisfies(n -> assertThat(n).containsEntry("reachable", true)
                .containsEntry("address", REDIS.address()));

        REDIS.stop();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            Map<String, Object> down = get("/actuator/health/coordis");
            assertThat(down).containsEntry("status", "DOWN");
        });
        assertThat(status("/actuator/health")).isEqualTo(503);

        REDIS.restart(Duration.ZERO);
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() ->
                assertThat(get("/actuator/health/coordis")).containsEntry("status", "UP"));
    }

    @Test
    @Order(3)
    void metricsEndpointShowsTheClientsMeters() throws Exception {
        coordis.lock("report").acquire(Duration.ofSeconds(2)).orElseThrow().close();
        coordis.lock("report:42").acquire(Duration.ofSeconds(2)).orElseThrow().close();
        assertThat(measurement("/actuator/metrics/coordis.lock.acquire?tag=name:report&tag=result:acquired", "COUNT"))
                .isGreaterThanOrEqualTo(1.0);
        assertThat(measurement("/actuator/metrics/coordis.lock.acquire?tag=name:other&tag=result:acquired", "COUNT"))
                .isGreaterThanOrEqualTo(1.0);
        assertThat(status("/actuator/metrics/coordis.lock.acquire?tag=name:report:42")).isEqualTo(404);

        coordis.reliableQueue("metered").push("one");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(measurement("/actuator/metrics/coordis.queue.depth?tag=name:metered", "VALUE"))
                        .isEqualTo(1.0));
    }

    @Test
    @Order(6)
    void rateLimitersAndLatchesAreShownWhenThereAreAnyAsLsOutputJsonListsThem() throws Exception {
        String prefix = Prefixed.prefix() + "app:";
        RateLimiter throttle = coordis.rateLimiter("throttle", RateLimit.parse("10/1m")); // a permit every 6 s
        assertThat(throttle.tryAcquire(10).granted()).isTrue();
        coordis.countDownLatch("batch", 2, Duration.ofHours(1)).countDown();
        try (RespClient raw = RespClient.connect(REDIS)) {
            Map<String, Object> view = get("/actuator/coordis");
            assertThat(view.keySet()).containsExactly("match", "at", "locks", "elections", "queues", "signals",
                    "semaphores", "rate-limiters", "latches");
            Map<String, Object> limiter = only(view, "rate-limiters");
            assertThat(limiter).containsEntry("name", prefix + "throttle").containsEntry("idle", false)
                    .containsKeys("theoreticalArrival", "ttlMs");
            assertThat(((Number) limiter.get("busyForMs")).longValue()).isBetween(40_000L, 60_000L);
            assertThat(only(view, "latches")).containsEntry("name", prefix + "batch").containsEntry("count", 1)
                    .containsEntry("open", false).containsEntry("waiters", 0);

            for (String kind : List.of("rate-limiters", "latches")) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                ByteArrayOutputStream err = new ByteArrayOutputStream();
                int status = Main.run(new String[] {"ls", kind, "-o", "json", "-u", REDIS.uri()},
                        new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8),
                        Map.of(GlobalOptions.KEY_PREFIX_ENV, prefix));
                assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
                Object ls = JSON.std.mapFrom(out.toString(StandardCharsets.UTF_8)).get("items");
                assertThat(stable(view.get(kind))).as(kind).isEqualTo(stable(ls));
            }
            assertThat(get("/actuator/coordis?match=nothing*").keySet()).as("none there: not shown")
                    .doesNotContain("rate-limiters", "latches");
            raw.command("DEL", "{" + prefix + "throttle}:rate", "{" + prefix + "batch}:latch");
        }
    }

    @SuppressWarnings("unchecked")
    private double measurement(String path, String statistic) throws Exception {
        List<Map<String, Object>> measurements = (List<Map<String, Object>>) get(path).get("measurements");
        return measurements.stream().filter(m -> statistic.equals(m.get("statistic")))
                .mapToDouble(m -> ((Number) m.get("value")).doubleValue()).findFirst().orElseThrow();
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> only(Map<String, Object> view, String kind) {
        List<Map<String, Object>> items = (List<Map<String, Object>>) view.get(kind);
        assertThat(items).as(kind).hasSize(1);
        return items.get(0);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    private static List<?> list(Object value) {
        return (List<?>) value;
    }

    private static List<Object> names(Object items) {
        return list(items).stream().map(i -> map(i).get("name")).toList();
    }

    /** {@code value} without the fields named {@code field}, at any depth. */
    private static Object without(Object value, String field) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> {
                if (!k.equals(field)) {
                    out.put((String) k, without(v, field));
                }
            });
            return out;
        }
        return value instanceof List<?> l ? l.stream().map(v -> without(v, field)).toList() : value;
    }

    /** {@code value} without the figures that move between two reads ({@code ...Ms}), numbers as longs. */
    private static Object stable(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new TreeMap<>();
            m.forEach((k, v) -> {
                if (!((String) k).endsWith("Ms")) {
                    out.put((String) k, stable(v));
                }
            });
            return out;
        }
        if (value instanceof List<?> l) {
            return l.stream().map(ActuatorIT::stable).toList();
        }
        return value instanceof Number n ? (Object) n.longValue() : value;
    }

    /** The names of every field of {@code value}, at any depth. */
    private static Set<String> fields(Object value) {
        Set<String> names = new TreeSet<>();
        if (value instanceof Map<?, ?> m) {
            m.forEach((k, v) -> {
                names.add((String) k);
                names.addAll(fields(v));
            });
        } else if (value instanceof List<?> l) {
            l.forEach(v -> names.addAll(fields(v)));
        }
        return names;
    }

    private String body(String path) throws Exception {
        HttpResponse<String> response = HTTP.send(request(path), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return response.body();
    }

    private Map<String, Object> get(String path) throws Exception {
        HttpResponse<String> response = HTTP.send(request(path), HttpResponse.BodyHandlers.ofString());
        return JSON.std.mapFrom(response.body());
    }

    private int status(String path) throws Exception {
        return HTTP.send(request(path), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(10)).build();
    }
}
