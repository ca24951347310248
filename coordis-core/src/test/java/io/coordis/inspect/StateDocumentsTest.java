package io.coordis.inspect;

import io.coordis.lock.LockHolder;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/** The one document of each state: plain values by the CLI's conventions, and a redacted form without tokens. */
class StateDocumentsTest {
    private static final Instant SINCE = Instant.ofEpochMilli(1_795_764_950_900L);

    private static LockState readLock() {
        LockHolder reader = new LockHolder("orders", "reader-tok", Optional.of("bob@web-2:7"), OptionalLong.of(8),
                Optional.of(Duration.ofSeconds(9)), Optional.of(SINCE));
        LockState.NodeState node = new LockState.NodeState("10.0.0.5:6379", Optional.of("coordis:readers"),
                Optional.of(Duration.ofSeconds(9)), Optional.empty(), OptionalLong.empty(), OptionalLong.of(8), true,
                Optional.empty());
        LockState.NodeState down = new LockState.NodeState("10.0.0.6:6379", Optional.empty(), Optional.empty(),
                Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), false, Optional.of("refused"));
        return new LockState("orders", LockState.Mode.REDLOCK, 2, 1, Optional.of("coordis:readers"), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.of(Duration.ofSeconds(9)), Optional.empty(),
                OptionalLong.empty(), OptionalLong.of(8), 0, Set.of(LockState.Flag.NODES_DISAGREE,
                LockState.Flag.EXPIRING_SOON), List.of(node, down), List.of(), List.of(reader), Optional.empty());
    }

    private static LockState heldLock() {
        LockState.NodeState node = new LockState.NodeState("10.0.0.5:6379", Optional.of("tok-1"),
                Optional.of(Duration.ofMillis(29_654)), Optional.of("app@web-1:4711"), OptionalLong.of(17),
                OptionalLong.of(17), true, Optional.empty());
        return new LockState("orders:42", LockState.Mode.SINGLE_NODE, 1, 1, Optional.of("tok-1"),
                Optional.of("app@web-1:4711"), Optional.of(SINCE), Optional.of(Duration.ofMillis(300)),
                Optional.of(Duration.ofMillis(29_654)), Optional.of(Duration.ofSeconds(30)), OptionalLong.of(17),
                OptionalLong.of(17), 0, Set.of(), List.of(node), List.of(), List.of(), Optional.empty());
    }

    private static SemaphoreState semaphore() {
        return new SemaphoreState("pool", OptionalInt.of(2), 1, OptionalLong.of(4),
                List.of(new SemaphoreState.Holder("permit-tok", 1, Optional.of("a@b:1"), OptionalLong.of(4),
                        Optional.of(SINCE), Duration.ofSeconds(20))),
                List.of(new SemaphoreState.Waiter("waiter-tok", Duration.ofMillis(40), Duration.ofSeconds(5))));
    }

    @Test
    void aLocksDocumentHoldsPlainValuesByTheCommandLinesConventions() {
        Map<String, Object> doc = StateDocuments.full(heldLock());
        assertThat(doc).containsEntry("name", "orders:42").containsEntry("mode", "single-node")
                .containsEntry("held", true).containsEntry("token", "tok-1")
                .containsEntry("since", SINCE.toEpochMilli()).containsEntry("heldForMs", 300L)
                .containsEntry("ttlMs", 29_654L).containsEntry("leaseTtlMs", 30_000L).containsEntry("fence", 17L)
                .containsEntry("writerWaitingMs", null).containsEntry("flags", List.of());
        assertThat(doc.get("holder")).isEqualTo(Map.of("id", "app@web-1:4711", "host", "web-1", "pid", 4711L));
        assertThat(doc.keySet()).containsExactly("name", "mode", "nodes", "agreeing", "held", "holder", "token",
                "since", "heldForMs", "ttlMs", "leaseTtlMs", "fence", "fenceCounter", "waiters", "readers",
                "writerWaitingMs", "flags", "perNode", "audit");
        assertThat(StateDocuments.full(readLock()).get("flags")).isEqualTo(List.of("expiring-soon", "nodes-disagree"));
    }

    @Test
    void theRedactedFormIsTheFullFormWithoutAnyToken() {
        for (ObjectState state : List.of(heldLock(), readLock(), semaphore())) {
            Map<String, Object> full = StateDocuments.full(state);
            Map<String, Object> redacted = StateDocuments.redacted(state);
            assertThat(fields(full)).as(state.name()).contains("token");
            assertThat(fields(redacted)).as(state.name()).doesNotContain("token");
            assertThat(redacted).as(state.name()).isEqualTo(withoutTokens(full));
            for (String token : List.of("tok-1", "reader-tok", "permit-tok", "waiter-tok")) {
                assertThat(String.valueOf(redacted)).doesNotContain(token);
            }
        }
        Map<?, ?> down = (Map<?, ?>) ((List<?>) StateDocuments.redacted(readLock()).get("perNode")).get(1);
        assertThat(down.get("held")).isEqualTo(false);
        assertThat(down.get("error")).isEqualTo("refused");
    }

    @Test
    void aListingIsKindMatchAtAndItems() {
        Instant at = Instant.ofEpochMilli(1_795_764_951_200L);
        Map<String, Object> doc = StateDocuments.listing(ObjectKind.SEMAPHORE, "p*", at, List.of(semaphore()), true);
        assertThat(doc.keySet()).containsExactly("kind", "match", "at", "items");
        assertThat(doc).containsEntry("kind", "semaphores").containsEntry("match", "p*")
                .containsEntry("at", at.toEpochMilli());
        assertThat(doc.get("items")).isEqualTo(List.of(StateDocuments.redacted(semaphore())));
        assertThat(ObjectKind.named("Semaphores")).contains(ObjectKind.SEMAPHORE);
        assertThat(ObjectKind.named("lock")).contains(ObjectKind.LOCK);
        assertThat(ObjectKind.named("castle")).isEmpty();
    }

    @Test
    void aRateLimitersAndALatchsDocumentsSayWhatIsStoredAndNoLimit() {
        Instant arrival = SINCE.plusNanos(1_500_000);
        RateLimiterState busy = new RateLimiterState("api", arrival, Duration.ofMillis(2_500),
                Optional.of(Duration.ofMillis(2_501)));
        assertThat(StateDocuments.full(busy)).containsExactly(Map.entry("name", "api"), Map.entry("idle", false),
                Map.entry("busyForMs", 2_500L), Map.entry("theoreticalArrival", SINCE.toEpochMilli() + 1),
                Map.entry("ttlMs", 2_501L));
        RateLimiterState idle = new RateLimiterState("old", SINCE, Duration.ZERO, Optional.empty());
        assertThat(StateDocuments.full(idle)).containsEntry("idle", true).containsEntry("busyForMs", 0L)
                .containsEntry("ttlMs", null);

        LatchState latch = new LatchState("batch", 0, Optional.of(Duration.ofMinutes(5)), 2);
        assertThat(StateDocuments.redacted(latch)).as("nothing to redact").isEqualTo(StateDocuments.full(latch))
                .containsExactly(Map.entry("name", "batch"), Map.entry("count", 0L), Map.entry("open", true),
                        Map.entry("ttlMs", 300_000L), Map.entry("waiters", 2L));
        assertThat(StateDocuments.listing(ObjectKind.LATCH, "*", SINCE, List.of(latch), false))
                .containsEntry("kind", "latches");
    }

    @Test
    void everyKindIsNamedByWhatAnOperatorTypes() {
        assertThat(ObjectKind.RATE_LIMITER.singular()).isEqualTo("rate-limiter");
        assertThat(ObjectKind.RATE_LIMITER.plural()).isEqualTo("rate-limiters");
        assertThat(ObjectKind.LATCH.plural()).isEqualTo("latches");
        for (String name : List.of("rate-limiter", "Rate-Limiters", "ratelimiter", "ratelimiters", "rate", "rates")) {
            assertThat(ObjectKind.named(name)).as(name).contains(ObjectKind.RATE_LIMITER);
        }
        assertThat(ObjectKind.named("latch")).contains(ObjectKind.LATCH);
        assertThat(ObjectKind.named("latches")).contains(ObjectKind.LATCH);
        assertThat(ObjectKind.named("latchs")).isEmpty();
        for (ObjectKind k : ObjectKind.values()) {
            assertThat(ObjectKind.named(k.singular())).contains(k);
            assertThat(ObjectKind.named(k.plural())).contains(k);
        }
    }

    private static Object withoutTokens(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> {
                if (!k.equals("token")) {
                    out.put(k, withoutTokens(v));
                }
            });
            return out;
        }
        return value instanceof List<?> l ? l.stream().map(StateDocumentsTest::withoutTokens).toList() : value;
    }

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
}
