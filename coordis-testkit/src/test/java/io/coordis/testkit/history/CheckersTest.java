package io.coordis.testkit.history;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CheckersTest {
    private static final Duration TTL = Duration.ofMillis(100);
    private final List<Op> ops = new ArrayList<>();

    private void op(String actor, String type, String f, String value, long token, long millis) {
        String[] pt = actor.split("/");
        ops.add(new Op(pt[0], pt.length > 1 ? pt[1] : "t", type, f, "k", value, token, millis * 1000));
    }

    private void hold(String actor, long invoke, long ok, long release, long token) {
        op(actor, "invoke", "acquire", "", -1, invoke);
        op(actor, "ok", "acquire", "", token, ok);
        op(actor, "invoke", "release", "", token, release);
        op(actor, "ok", "release", "", token, release + 1);
    }

    private List<Op> sorted() {
        List<Op> copy = new ArrayList<>(ops);
        copy.sort(java.util.Comparator.comparingLong(Op::micros));
        return copy;
    }

    @Test
    void sequentialHoldersWithGrowingTokensAreValid() {
        hold("a", 0, 1, 10, 1);
        hold("b", 5, 11, 20, 2);
        assertThat(LockChecker.check(sorted(), TTL)).satisfies(r -> {
            assertThat(r.valid()).isTrue();
            assertThat(r.acquisitions()).isEqualTo(2);
        });
    }

    @Test
    void twoHoldersInsideTheirValidityOverlap() {
        hold("a", 0, 1, 50, 1);
        hold("b", 10, 20, 60, 2);
        assertThat(LockChecker.check(sorted(), TTL).overlaps()).isEqualTo(1);
    }

    @Test
    void aHolderPastItsTtlNoLongerCountsAsHolding() {
        hold("a", 0, 1, 180, 1); // held 180 ms with a 100 ms TTL: valid until 100
        hold("b", 101, 102, 150, 2);
        assertThat(LockChecker.check(sorted(), TTL).valid()).isTrue();
    }

    @Test
    void aHolderActingPastItsTtlOverlapsUnfencedOnlyUntilItsReleaseOrItsLastStep() {
        hold("a", 0, 1, 250, 1); // paused past its 100 ms TTL, released at 250
        hold("b", 150, 160, 170, 2);
        hold("b", 251, 252, 260, 3); // after a's release
        LockChecker.Result r = LockChecker.check(sorted(), TTL);
        assertThat(r.valid()).as("inside validity nobody overlaps").isTrue();
        assertThat(r.unfencedOverlaps()).isEqualTo(1);

        ops.clear();
        op("c", "invoke", "acquire", "", -1, 0);
        op("c", "ok", "acquire", "", 1, 1);
        op("c", "info", "write", "", 1, 120); // never released: acted until this last step
        hold("d", 110, 115, 118, 2);
        hold("d", 130, 131, 140, 3);
        assertThat(LockChecker.check(sorted(), TTL).unfencedOverlaps()).isEqualTo(1);

        ops.clear();
        op("e", "invoke", "acquire", "", -1, 0);
        op("e", "ok", "acquire", "", 1, 1); // its release threw before being recorded
        op("e", "invoke", "acquire", "", -1, 50); // the next attempt: the first holding is over
        op("e", "fail", "acquire", "", -1, 300);
        hold("f", 100, 101, 110, 2);
        assertThat(LockChecker.check(sorted(), TTL).unfencedOverlaps()).isZero();
    }

    @Test
    void aLaterAcquisitionWithALowerTokenIsAFenceViolationButConcurrentOnesAreNot() {
        hold("a", 0, 1, 10, 5);
        hold("b", 11, 12, 20, 3); // began after a returned: must be higher
        assertThat(LockChecker.check(sorted(), TTL).fenceViolations()).isEqualTo(1);

        ops.clear();
        hold("a", 0, 5, 10, 5);
        hold("b", 1, 20, 30, 4); // invoked before a returned: Redis may have ordered b first
        assertThat(LockChecker.check(sorted(), TTL).fenceViolations()).isZero();
    }

    @Test
    void twoCandidatesWithOneTermOrAFallingTermAreFlagged() {
        op("a", "invoke", "campaign", "a", -1, 0);
        op("a", "ok", "elected", "a", 1, 1);
        op("b", "invoke", "campaign", "b", -1, 5);
        op("b", "ok", "elected", "b", 1, 6);
        LeaderChecker.Result r = LeaderChecker.check(sorted());
        assertThat(r.sharedTerms()).isEqualTo(1);
        assertThat(r.regressions()).isEqualTo(1);

        ops.clear();
        op("a", "invoke", "campaign", "a", -1, 0);
        op("a", "ok", "elected", "a", 1, 1);
        op("b", "invoke", "campaign", "b", -1, 5);
        op("b", "ok", "elected", "b", 2, 6);
        assertThat(LeaderChecker.check(sorted()).valid()).isTrue();
    }

    @Test
    void queueAccountingSeparatesLostStuckDuplicatedAndIndeterminate() {
        op("p", "ok", "enqueue", "m1", -1, 0);
        op("p", "ok", "enqueue", "m2", -1, 1);
        op("p", "ok", "enqueue", "m3", -1, 2);
        op("p", "ok", "enqueue", "m4", -1, 3);
        op("p", "ok", "enqueue", "m5", -1, 4);
        op("c", "ok", "dequeue", "m1", -1, 10);
        op("c", "ok", "ack", "m1", -1, 11);
        op("c", "ok", "dequeue", "m1", -1, 12); // redelivered
        op("c", "ok", "dequeue", "m2", -1, 13); // then lost
        op("d", "ok", "dequeue", "m3", -1, 14);
        op("d", "invoke", "ack", "m3", -1, 15); // d died waiting for the reply
        op("p", "info", "stuck", "m4", -1, 20);
        op("p", "info", "ready", "m5", -1, 21);
        op("c", "ok", "dequeue", "m9", -1, 22); // nobody sent it
        QueueChecker.Result r = QueueChecker.check(sorted());
        assertThat(r.lost()).isEqualTo(1);
        assertThat(r.stuck()).isEqualTo(1);
        assertThat(r.duplicates()).isEqualTo(1);
        assertThat(r.indeterminate()).isEqualTo(1);
        assertThat(r.phantoms()).isEqualTo(1);
        assertThat(r.valid()).isFalse();
    }

    @Test
    void aBatchAckLeftWithoutItsReplyMakesEveryIdOfTheBatchIndeterminate(@TempDir Path dir) {
        try (History c = History.open(dir.resolve("c.jsonl"), "c")) {
            c.recordAll("ok", "enqueue", "q", List.of("m1", "m2", "m3", "m4"), -1);
            c.recordAll("ok", "dequeue", "q", List.of("m1", "m2", "m3", "m4"), -1);
            c.recordAll("invoke", "ack", "q", List.of("m1", "m2"), -1);
            c.recordAll("ok", "ack", "q", List.of("m1", "m2"), -1);
            c.recordAll("invoke", "ack", "q", List.of("m3", "m4"), -1);
            c.record("ok", "ack", "q", "m3", -1); // died before recording m4's outcome
        }
        QueueChecker.Result r = QueueChecker.check(Histories.read(dir));
        assertThat(r.enqueued()).isEqualTo(4);
        assertThat(r.acknowledged()).isEqualTo(3);
        assertThat(r.indeterminate()).isEqualTo(1);
        assertThat(r.lost()).isZero();
        assertThat(r.valid()).isTrue();
    }

    @Test
    void aMissedSignalNeedsAGapReportedAfterItWasSent() {
        op("r", "ok", "subscribed", "", -1, 0);
        op("s", "invoke", "notify", "s1", -1, 10);
        op("s", "ok", "notify", "s1", -1, 11);
        op("s", "invoke", "notify", "s2", -1, 20);
        op("s", "ok", "notify", "s2", -1, 21);
        op("r", "ok", "receive", "s2", -1, 22);
        assertThat(SignalChecker.check(sorted()).silentlyMissed()).isEqualTo(1);

        op("r", "info", "gap", "", -1, 15); // reported between s1 and the next signal heard
        SignalChecker.Result r = SignalChecker.check(sorted());
        assertThat(r.silentlyMissed()).isZero();
        assertThat(r.missedWithGap()).isEqualTo(1);
        assertThat(r.heard()).isEqualTo(1);

        ops.clear();
        op("r", "ok", "subscribed", "", -1, 0);
        op("r", "info", "gap", "", -1, 5); // before the signal was sent: does not cover it
        op("s", "invoke", "notify", "s1", -1, 10);
        op("s", "ok", "notify", "s1", -1, 11);
        assertThat(SignalChecker.check(sorted()).silentlyMissed()).isEqualTo(1);
    }

    @Test
    void signalVerdictsOnRandomHistoriesMatchTheDefinitionCheckedSignalBySignal() {
        java.util.Random random = new java.util.Random(42);
        for (int round = 0; round < 200; round++) {
            ops.clear();
            op("r", "ok", "subscribed", "", -1, random.nextInt(20));
            long t = 0;
            List<long[]> sends = new ArrayList<>(); // invoked, ok, heard (-1: missed)
            List<Long> gaps = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                t += 1 + random.nextInt(5);
                long invoked = t;
                long ok = t + random.nextInt(3);
                long heard = random.nextInt(4) == 0 ? -1 : ok + 1 + random.nextInt(8);
                op("s", "invoke", "notify", "s" + i, -1, invoked);
                op("s", "ok", "notify", "s" + i, -1, ok);
                if (heard >= 0) {
                    op("r", "ok", "receive", "s" + i, -1, heard);
                }
                if (random.nextInt(6) == 0) {
                    long gap = t + random.nextInt(10);
                    gaps.add(gap);
                    op("r", "info", "gap", "", -1, gap);
                }
                sends.add(new long[] {invoked, ok, heard});
            }
            long end = t + 20;
            op("r", "ok", "unsubscribed", "", -1, end);
            long from = ops.get(0).micros() / 1000;
            int silent = 0;
            int covered = 0;
            for (long[] s : sends) {
                if (s[0] < from || s[1] > end || s[2] >= 0) {
                    continue;
                }
                long bound = end;
                for (long[] later : sends) {
                    if (later[2] >= 0 && later[0] > s[1]) {
                        bound = Math.min(bound, later[2]);
                    }
                }
                long lo = s[0];
                long hi = bound;
                if (gaps.stream().anyMatch(g -> g >= lo && g <= hi)) {
                    covered++;
                } else {
                    silent++;
                }
            }
            SignalChecker.Result r = SignalChecker.check(sorted());
            assertThat(r.silentlyMissed()).as("round %d", round).isEqualTo(silent);
            assertThat(r.missedWithGap()).as("round %d", round).isEqualTo(covered);
        }
    }

    @Test
    void historiesRoundTripThroughFilesAndSkipATornLastLine(@TempDir Path dir) throws Exception {
        try (History h = History.open(dir.resolve("a.jsonl"), "proc \"one\"")) {
            h.ok("enqueue", "q\n1", "m\u0001\\", 7);
            h.invoke("ack", "q", "", -1);
        }
        Files.writeString(dir.resolve("b.jsonl"), "{\"process\":\"b\",\"thread\":\"t\",\"type\":\"ok\",\"f\":\"x\",\"key\":\"k\",\"value\":\"v\",\"token\":1,\"time\":1}\n{\"process\":\"b\",\"th");
        List<Op> read = Histories.read(dir);
        assertThat(read).hasSize(3);
        Op first = read.stream().filter(o -> o.f().equals("enqueue")).findFirst().orElseThrow();
        assertThat(first.process()).isEqualTo("proc \"one\"");
        assertThat(first.key()).isEqualTo("q\n1");
        assertThat(first.value()).isEqualTo("m\u0001\\");
        assertThat(first.token()).isEqualTo(7);
        assertThat(read.get(0).micros()).isEqualTo(1); // ordered by time

        Files.writeString(dir.resolve("c.jsonl"), "garbage\n{\"process\":\"b\",\"thread\":\"t\",\"type\":\"ok\",\"f\":\"x\",\"token\":1,\"time\":1}\n");
        assertThatThrownBy(() -> Histories.read(dir)).hasMessageContaining("c.jsonl line 1");
    }
}
