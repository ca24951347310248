package io.coordis.testkit.fault;

import io.coordis.testkit.fault.Nemesis.Kind;
import io.coordis.testkit.fault.Nemesis.Step;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The steps a {@link Nemesis} seed gives: rounds of the chosen kinds, each round shuffled, each step with a target,
 * a quiet gap before it and a hold. The same seed always gives the same steps.
 *
 * <p>Immutable; each {@link #steps()} starts a fresh sequence from the seed, to be read by one thread.
 */
final class Schedule {
    private final long seed;
    private final List<Kind> kinds;
    private final Map<Kind, List<FaultTarget>> targets;
    private final Duration minGap;
    private final Duration maxGap;
    private final Duration minHold;
    private final Duration maxHold;
    private final Duration restartDelay;

    /** Gaps and holds are drawn uniformly in [min, max]; a {@link Kind#KILL_RESTART} holds the restart delay. */
    Schedule(long seed, List<Kind> kinds, Map<Kind, List<FaultTarget>> targets, Duration minGap, Duration maxGap,
             Duration minHold, Duration maxHold, Duration restartDelay) {
        this.seed = seed;
        this.kinds = List.copyOf(kinds);
        this.targets = targets;
        this.minGap = minGap;
        this.maxGap = maxGap;
        this.minHold = minHold;
        this.maxHold = maxHold;
        this.restartDelay = restartDelay;
    }

    long seed() {
        return seed;
    }

    List<Kind> kinds() {
        return kinds;
    }

    /** A fresh sequence of steps from the seed. */
    Steps steps() {
        return new Steps();
    }

    /** A step and the target it hits. */
    record Planned(Step step, FaultTarget target) {
    }

    /** The steps in order; each {@link #next()} draws one. Not thread-safe. */
    final class Steps {
        private final Random random = new Random(seed);
        private final List<Kind> round = new ArrayList<>();
        private int rounds = -1;
        private int position;

        Planned next() {
            if (position == round.size()) {
                round.clear();
                round.addAll(kinds);
                Collections.shuffle(round, random);
                position = 0;
                rounds++;
            }
            Kind kind = round.get(position++);
            Duration gap = between(random, minGap, maxGap);
            List<FaultTarget> of = targets.get(kind);
            FaultTarget target = of.get(random.nextInt(of.size()));
            Duration hold = between(random, minHold, maxHold);
            if (kind == Kind.KILL_RESTART) {
                hold = restartDelay;
            }
            return new Planned(new Step(rounds, gap, kind, target.name(), hold), target);
        }
    }

    /** A duration drawn uniformly in [min, max] (whole milliseconds) from {@code random}. */
    static Duration between(Random random, Duration min, Duration max) {
        long span = max.toMillis() - min.toMillis();
        return min.plusMillis(span <= 0 ? 0 : (long) (random.nextDouble() * span));
    }
}
