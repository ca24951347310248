package io.coordis.testkit.fault;

import io.coordis.testkit.fault.Nemesis.Event;
import io.coordis.testkit.fault.Nemesis.Kind;
import io.coordis.testkit.fault.Nemesis.Step;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The nemesis's schedule and healing, with fake targets that record what was done to them. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class NemesisTest {
    private static final Set<Kind> ALL = EnumSet.allOf(Kind.class);

    /** A target that records its harm and healing; optionally throws half way through applying. */
    private static final class FakeFault implements Nemesis.Fault {
        final String name;
        final List<String> log;
        volatile boolean harmed;
        volatile int applied;
        volatile int healed;
        /** Throws on this apply (1 for the first), after doing its harm; 0: never. */
        volatile int throwOnApply;
        final CountDownLatch firstApply = new CountDownLatch(1);

        FakeFault(String name, List<String> log) {
            this.name = name;
            this.log = log;
        }

        @Override
        public String apply(Duration hold) {
            harmed = true;
            applied++;
            log.add("apply " + name);
            firstApply.countDown();
            if (applied == throwOnApply) {
                throw new IllegalStateException("the fake broke after doing harm to " + name);
            }
            return name;
        }

        @Override
        public void heal() {
            if (harmed) {
                log.add("heal " + name);
            }
            harmed = false;
            healed++;
        }
    }

    /** A nemesis over fake targets: two for PAUSE, one for every other kind. */
    private static Nemesis.Builder fakes(long seed, Set<Kind> kinds, List<String> log, Map<String, FakeFault> out) {
        Nemesis.Builder b = Nemesis.builder(seed).kinds(kinds)
                .gap(Duration.ZERO, Duration.ofMillis(2)).hold(Duration.ZERO, Duration.ofMillis(2))
                .restartDelay(Duration.ofMillis(1));
        for (Kind kind : kinds) {
            List<String> names = kind == Kind.PAUSE ? List.of("pause-a", "pause-b") : List.of(kind.name().toLowerCase());
            for (String name : names) {
                FakeFault f = new FakeFault(name, log);
                out.put(name, f);
                b.target(kind, name, f);
            }
        }
        return b;
    }

    private static Nemesis.Builder fakes(long seed, Set<Kind> kinds) {
        return fakes(seed, kinds, new CopyOnWriteArrayList<>(), new java.util.HashMap<>());
    }

    @Test
    void theSameSeedGivesTheSameScheduleOfKindsTargetsGapsAndHolds() {
        List<Step> first = fakes(42, ALL).build().schedule(70);
        List<Step> again = fakes(42, ALL).build().schedule(70);
        assertThat(again).isEqualTo(first);
        assertThat(fakes(43, ALL).build().schedule(70)).as("another seed, another schedule").isNotEqualTo(first);
        assertThat(first.stream().map(Step::target).collect(Collectors.toSet()))
                .as("both PAUSE targets are drawn").contains("pause-a", "pause-b");
    }

    @Test
    void everyRoundAppliesEachChosenKindOnceInAShuffledOrder() {
        for (long s = 0; s < 20; s++) {
            long seed = s;
            List<Step> steps = fakes(seed, ALL).build().schedule(ALL.size() * 5);
            Map<Integer, List<Kind>> rounds = steps.stream().collect(Collectors.groupingBy(Step::round,
                    java.util.TreeMap::new, Collectors.mapping(Step::kind, Collectors.toList())));
            assertThat(rounds.keySet()).as("seed " + seed).containsExactly(0, 1, 2, 3, 4);
            rounds.forEach((round, kinds) -> assertThat(kinds).as("seed " + seed + " round " + round)
                    .containsExactlyInAnyOrderElementsOf(ALL));
        }
        List<List<Kind>> firstRounds = new ArrayList<>();
        for (long seed = 0; seed < 20; seed++) {
            firstRounds.add(fakes(seed, ALL).build().schedule(ALL.size()).stream().map(Step::kind).toList());
        }
        assertThat(Set.copyOf(firstRounds)).as("the order is shuffled, not fixed").hasSizeGreaterThan(1);
    }

    @Test
    void aRunAppliesExactlyTheScheduledKindsAndTargetsInOrder() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        Nemesis nemesis = fakes(7, ALL, log, new java.util.HashMap<>()).build();
        List<Step> planned = nemesis.schedule(20_000); // more than 200 ms of 0-2 ms steps can take
        try (nemesis) {
            nemesis.start(Duration.ofMillis(200));
            assertThat(nemesis.await(Duration.ofSeconds(10))).isTrue();
        }
        List<Event> events = nemesis.events();
        System.out.println("a 200 ms run of fakes applied " + events.size() + " faults");
        assertThat(events).as("at least one full round").hasSizeGreaterThanOrEqualTo(ALL.size());
        assertThat(events.size()).isLessThanOrEqualTo(planned.size());
        List<String> ran = events.stream().map(e -> e.kind() + "@" + e.target()).toList();
        List<String> expected = planned.subList(0, events.size()).stream().map(s -> s.kind() + "@" + s.target()).toList();
        assertThat(ran).isEqualTo(expected);
        assertThat(events).allSatisfy(e -> assertThat(e.healedNanos()).isGreaterThanOrEqualTo(e.startNanos()));
    }

    @Test
    void aShortRunStillCompletesItsFirstRound() throws Exception {
        try (Nemesis nemesis = fakes(11, ALL).build()) {
            nemesis.start(Duration.ZERO);
            assertThat(nemesis.await(Duration.ofSeconds(10))).isTrue();
            assertThat(nemesis.events().stream().map(Event::kind).collect(Collectors.toSet()))
                    .containsExactlyInAnyOrderElementsOf(ALL);
        }
    }

    @Test
    void closingHealsTheFaultBeingHeldAtOnce() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        Map<String, FakeFault> fakes = new java.util.HashMap<>();
        Nemesis nemesis = fakes(3, EnumSet.of(Kind.BLACKHOLE), log, fakes)
                .hold(Duration.ofSeconds(20), Duration.ofSeconds(20)).build();
        FakeFault target = fakes.get("blackhole");
        nemesis.start(Duration.ofSeconds(60));
        assertThat(target.firstApply.await(5, TimeUnit.SECONDS)).as("applied").isTrue();
        assertThat(target.harmed).isTrue();
        long start = System.nanoTime();
        nemesis.close();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("close does not wait out the hold")
                .isLessThan(Duration.ofSeconds(5));
        assertThat(target.harmed).as("healed by close").isFalse();
        assertThat(nemesis.events()).singleElement().satisfies(e -> {
            assertThat(e.kind()).isEqualTo(Kind.BLACKHOLE);
            assertThat(e.held()).isLessThan(Duration.ofSeconds(20));
        });
        assertThat(nemesis.failure()).as("a fault cut short by close is no failure").isEmpty();
        int applied = target.applied;
        Thread.sleep(100);
        assertThat(target.applied).as("nothing applied after close").isEqualTo(applied);
        assertThat(nemesis.await(Duration.ofSeconds(1))).isTrue();
    }

    @Test
    void aFaultThatThrowsHalfWayIsHealedAndEndsTheRunWithItsError() throws Exception {
        List<String> log = new CopyOnWriteArrayList<>();
        Map<String, FakeFault> fakes = new java.util.HashMap<>();
        Set<Kind> kinds = EnumSet.of(Kind.PAUSE, Kind.LATENCY, Kind.PARTITION);
        Nemesis nemesis = fakes(5, kinds, log, fakes).build();
        List<Step> planned = nemesis.schedule(9);
        // the third fault of the run breaks after doing its harm
        String breaking = planned.get(2).target();
        FakeFault broken = fakes.get(breaking);
        broken.throwOnApply = 1 + (int) planned.subList(0, 2).stream().filter(s -> s.target().equals(breaking)).count();
        try (nemesis) {
            nemesis.start(Duration.ofSeconds(30));
            assertThatThrownBy(() -> nemesis.await(Duration.ofSeconds(10)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("seed 5")
                    .hasMessageContaining(planned.get(2).kind().name())
                    .hasMessageContaining(breaking)
                    .hasRootCauseMessage("the fake broke after doing harm to " + breaking);
            assertThat(nemesis.failure()).isPresent();
            assertThat(fakes.values()).as("nothing is left harmed").allSatisfy(f -> assertThat(f.harmed).isFalse());
            assertThat(log).as("every harm is followed by its healing before the next fault").containsExactlyElementsOf(
                    planned.subList(0, 3).stream().flatMap(s -> List.of("apply " + s.target(), "heal " + s.target()).stream())
                            .toList());
            assertThat(nemesis.events()).as("the broken fault is not recorded as applied").hasSize(2);
        }
    }

    @Test
    void aStepWithNothingToHitIsSkippedAndNotRecorded() throws Exception {
        try (Nemesis nemesis = Nemesis.builder(1).kinds(EnumSet.of(Kind.STOP_CLIENT)).clientPids(Collections::emptyList)
                .gap(Duration.ZERO, Duration.ZERO).hold(Duration.ZERO, Duration.ZERO).build()) {
            nemesis.start(Duration.ofMillis(50));
            assertThat(nemesis.await(Duration.ofSeconds(5))).isTrue();
            assertThat(nemesis.events()).isEmpty();
        }
    }

    @Test
    void aChosenKindWithoutATargetIsRefusedWhenBuilt() {
        assertThatThrownBy(() -> Nemesis.builder(1).kinds(EnumSet.of(Kind.PARTITION)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PARTITION needs a target");
        assertThatThrownBy(() -> Nemesis.builder(1).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one kind");
    }
}
