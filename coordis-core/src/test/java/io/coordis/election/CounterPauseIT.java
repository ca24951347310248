package io.coordis.election;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The paused-leader scenario on the counter election: leader A freezes past its term, B takes over and
 * counts the key past the value A remembers, then A runs again. The classic algorithm without the
 * local term check (negative control) then has two leaders acting at once; Coordis's counter election,
 * with the check, has one.
 */
class CounterPauseIT {
    private static final Duration TERM = Duration.ofSeconds(2);
    private static final Duration WATCH = Duration.ofSeconds(2);
    private static final Pattern REMEMBERED = Pattern.compile("remembered=(\\d+)");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** Acts of the resumed old leader and of the new one, in the {@link #WATCH} after resuming. */
    record Outcome(long oldLeaderActs, long newLeaderActs) {
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void negativeControlTheClassicAlgorithmWithoutTheTermCheckHasTwoLeaders() throws Exception {
        Outcome o = pausedLeader("seed", "el:seed");
        System.out.println("classic algorithm after resuming: old leader acted " + o.oldLeaderActs()
                + " times, new leader " + o.newLeaderActs());
        assertThat(o.oldLeaderActs()).as("the stale leader still acts").isPositive();
        assertThat(o.newLeaderActs()).as("while the new leader acts").isPositive();
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void coordisCounterElectionWithTheTermCheckHasOneLeader() throws Exception {
        Outcome o = pausedLeader("counter", "el:counter");
        System.out.println("Coordis counter election after resuming: old leader acted " + o.oldLeaderActs()
                + " times, new leader " + o.newLeaderActs());
        assertThat(o.oldLeaderActs()).as("the resumed leader knows its term is over").isZero();
        assertThat(o.newLeaderActs()).isPositive();
    }

    private Outcome pausedLeader(String mode, String key) throws Exception {
        try (FencedResource referee = FencedResource.recording();
             Candidates candidates = new Candidates(referee, mode, key, TERM)) {
            String a = candidates.start(redis.uri());
            ChildJvm jvmA = candidates.get(a);
            jvmA.awaitLine("ROUND leader=true", Duration.ofSeconds(10));
            String b = candidates.start(redis.uri());
            Thread.sleep(1000); // both count the key up; below, +2 covers a round A made but had not printed when frozen
            jvmA.pause();
            List<String> lines = jvmA.lines();
            long remembered = remembered(lines.get(lines.size() - 1));
            assertThat(remembered).as("A led before the pause: %s", lines).isPositive();
            int mark = referee.events().size();
            referee.await(mark, "ENTER", b, TERM.multipliedBy(3))
                    .orElseThrow(() -> new AssertionError("B never led; " + candidates.describe()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (Long.parseLong((String) redis.server().command("GET", Prefixed.key(key))) <= remembered + 2) {
                assertThat(System.nanoTime()).as("B counted past %d", remembered).isLessThan(deadline);
                Thread.sleep(50);
            }
            int resumed = referee.events().size();
            jvmA.resume();
            Thread.sleep(WATCH.toMillis());
            List<FencedResource.Event> after = referee.events().subList(resumed, referee.events().size());
            long actsA = after.stream().filter(e -> e.verb().equals("ENTER") && e.client().equals(a)).count();
            long actsB = after.stream().filter(e -> e.verb().equals("ENTER") && e.client().equals(b)).count();
            return new Outcome(actsA, actsB);
        }
    }

    private static long remembered(String line) {
        Matcher m = REMEMBERED.matcher(line);
        if (!m.find()) {
            throw new AssertionError("no remembered value in '" + line + "'");
        }
        return Long.parseLong(m.group(1));
    }
}
