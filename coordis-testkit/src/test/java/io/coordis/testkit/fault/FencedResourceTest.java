package io.coordis.testkit.fault;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fenced resource's verdicts: what a correct lock produces passes clean, and each way a broken lock shows
 * (a stale holder, two holders inside, two holders with one token) is counted as what it is, in this JVM and
 * over its line protocol.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FencedResourceTest {

    /** One holder after another, each with a higher token: what a correct lock produces. */
    private static void correctHandOffs(FencedResource r, int holders) {
        for (int token = 1; token <= holders; token++) {
            String client = "c" + (token % 3);
            r.enter(client, token);
            assertThat(r.write(client, token)).isTrue();
            assertThat(r.write(client, token)).as("the same holder writes again with its token").isTrue();
            r.exit(client, token);
        }
    }

    @Test
    void readersTogetherPassButAWriterBesideAnyoneIsAnOverlap() {
        try (FencedResource r = FencedResource.start()) {
            r.share("r1", 2);
            r.share("r2", 1); // readers draw from one counter but enter in any order
            r.exit("r1", 2);
            r.exit("r2", 1);
            r.enter("w", 3);
            r.exit("w", 3);
            r.share("r3", 4);
            FencedResource.Report clean = r.report();
            assertThat(clean.overlaps()).isZero();
            assertThat(clean.fenceRegressions()).isZero();
            assertThat(clean.maxInside()).isEqualTo(2);

            r.enter("w2", 5); // a writer beside a reader
            r.exit("w2", 5);
            r.exit("r3", 4);
            r.enter("w3", 6);
            r.share("r4", 7); // a reader beside a writer
            r.share("stale", 2); // a reader with a number below a writer's that entered before
            FencedResource.Report broken = r.report();
            assertThat(broken.overlaps()).isEqualTo(3);
            assertThat(broken.fenceRegressions()).isEqualTo(1);
        }
    }

    @Test
    void increasingTokensFromOneHolderAtATimeAreAcceptedWithNothingFlagged() {
        try (FencedResource r = FencedResource.start()) {
            correctHandOffs(r, 50);
            FencedResource.Report report = r.report();
            assertThat(report.accepted()).isEqualTo(100);
            assertThat(report.highestToken()).isEqualTo(50);
            assertThat(report.staleRejections()).isZero();
            assertThat(report.overlaps()).isZero();
            assertThat(report.violations()).isZero();
            assertThat(report.protocolErrors()).isZero();
            assertThat(report.maxInside()).isEqualTo(1);
            assertThat(report.totalEnters()).isEqualTo(50);
            assertThat(report.notes()).isEmpty();
        }
    }

    @Test
    void aStaleTokenIsRefusedAndCountedAsAStaleRejectionNotAViolation() {
        try (FencedResource r = FencedResource.start()) {
            assertThat(r.write("old", 5)).isTrue();
            assertThat(r.write("new", 6)).isTrue();
            assertThat(r.write("old", 5)).as("the paused holder's late write").isFalse();
            assertThat(r.write("older", 1)).isFalse();
            FencedResource.Report report = r.report();
            assertThat(report.staleRejections()).isEqualTo(2);
            assertThat(report.accepted()).isEqualTo(2);
            assertThat(report.highestToken()).as("a refused write does not move the fence").isEqualTo(6);
            assertThat(report.violations()).isZero();
            assertThat(r.write("new", 6)).as("the current holder still writes").isTrue();
        }
    }

    @Test
    void aSecondWriterInsideAtOnceIsAnUnfencedOverlap() {
        try (FencedResource r = FencedResource.start()) {
            r.enter("a", 1);
            r.enter("b", 2);
            FencedResource.Report report = r.report();
            assertThat(report.overlaps()).isEqualTo(1);
            assertThat(report.maxInside()).isEqualTo(2);
            assertThat(report.notes()).anySatisfy(n -> assertThat(n).contains("b (token 2) entered while inside").contains("a=1"));
            assertThat(report.violations()).as("tokens 1 < 2 can still be ordered").isZero();
            r.exit("a", 1);
            r.exit("b", 2);
            r.enter("c", 3);
            assertThat(r.report().overlaps()).as("entering an empty resource is no overlap").isEqualTo(1);
        }
    }

    @Test
    void overlapsAreCountedByWhoWasInvolvedSoThoseWithAPausedHolderCanBeSetApart() {
        try (FencedResource r = FencedResource.start()) {
            r.enter("paused", 1); // a holder stopped inside
            r.enter("a", 2);
            r.exit("a", 2);
            r.enter("b", 3);
            r.exit("b", 3);
            r.exit("paused", 1);
            r.enter("a", 4);
            r.enter("b", 5); // two holders never paused, inside at once
            assertThat(r.report().overlaps()).isEqualTo(3);
            assertThat(r.overlapsAmong(c -> !c.equals("paused"))).as("among those never paused").isEqualTo(1);
            assertThat(r.overlapsAmong(c -> true)).isEqualTo(3);
            assertThat(r.overlapsAmong(c -> c.equals("a"))).isZero();
        }
    }

    @Test
    void twoWritersWithTheSameTokenAreAFencedViolation() {
        try (FencedResource r = FencedResource.start()) {
            assertThat(r.write("a", 7)).isTrue();
            assertThat(r.write("b", 7)).as("accepted: the fence cannot tell them apart").isTrue();
            FencedResource.Report report = r.report();
            assertThat(report.violations()).isEqualTo(1);
            assertThat(report.staleRejections()).isZero();
            assertThat(report.notes()).anySatisfy(n -> assertThat(n).contains("b wrote with token 7, which a holds too"));
        }
    }

    @Test
    void aBrokenLocksHistoryIsFlaggedWhileTheCorrectOneBesideItIsNot() {
        // a lock without NX that hands one token out twice: both holders get in, both write, and the one
        // that got the lock earlier writes once more after the next holder moved the fence on
        try (FencedResource broken = FencedResource.start(); FencedResource correct = FencedResource.start()) {
            broken.enter("a", 1);
            assertThat(broken.write("a", 1)).isTrue();
            broken.enter("b", 1);
            assertThat(broken.write("b", 1)).isTrue();
            broken.exit("b", 1);
            broken.enter("c", 2);
            assertThat(broken.write("c", 2)).isTrue();
            assertThat(broken.write("a", 1)).isFalse();
            broken.exit("a", 1);
            broken.exit("c", 2);
            correctHandOffs(correct, 3);

            FencedResource.Report flagged = broken.report();
            assertThat(flagged.overlaps()).as(flagged.toString()).isEqualTo(2);
            assertThat(flagged.violations()).as(flagged.toString()).isEqualTo(1);
            assertThat(flagged.staleRejections()).as(flagged.toString()).isEqualTo(1);
            FencedResource.Report clean = correct.report();
            assertThat(clean.overlaps() + clean.violations() + clean.staleRejections() + clean.protocolErrors())
                    .as(clean.toString()).isZero();
        }
    }

    @Test
    void exitingWithoutEnteringAndEnteringTwiceAreProtocolErrors() {
        try (FencedResource r = FencedResource.start()) {
            r.exit("ghost", 1);
            r.enter("a", 2);
            r.enter("a", 2);
            r.exit("a", 3);
            FencedResource.Report report = r.report();
            assertThat(report.protocolErrors()).isEqualTo(3);
            assertThat(report.notes()).anySatisfy(n -> assertThat(n).contains("ghost exited with token 1 but had entered with null"))
                    .anySatisfy(n -> assertThat(n).contains("a entered twice"))
                    .anySatisfy(n -> assertThat(n).contains("a exited with token 3 but had entered with 2"));
        }
    }

    @Test
    void theLineProtocolGivesTheSameVerdictsAsCallsInThisJvm() throws Exception {
        try (FencedResource r = FencedResource.start();
             FencedClient a = FencedClient.connect(r.address(), "a");
             FencedClient b = FencedClient.connect(r.address(), "b")) {
            a.enter(1);
            assertThat(a.write(1)).isTrue();
            b.enter(2);
            assertThat(b.write(2)).isTrue();
            assertThat(a.write(1)).as("stale over TCP").isFalse();
            b.exit(2);
            a.exit(1);
            try (Socket raw = new Socket("127.0.0.1", r.port())) {
                OutputStream out = raw.getOutputStream();
                BufferedReader in = new BufferedReader(new InputStreamReader(raw.getInputStream(), StandardCharsets.UTF_8));
                out.write("WRITE c\nJUMP c 1\nWRITE c x\n".getBytes(StandardCharsets.UTF_8));
                out.flush();
                assertThat(in.readLine()).isEqualTo("ERR");
                assertThat(in.readLine()).isEqualTo("ERR");
                assertThat(in.readLine()).isEqualTo("ERR");
            }
            FencedResource.Report report = r.report();
            assertThat(report.enters()).containsEntry("a", 1).containsEntry("b", 1);
            assertThat(report.overlaps()).isEqualTo(1);
            assertThat(report.staleRejections()).isEqualTo(1);
            assertThat(report.violations()).isZero();
            assertThat(report.protocolErrors()).isEqualTo(3);
        }
    }

    @Test
    void aClientNameWithASpaceIsRefusedBeforeConnecting() {
        try (FencedResource r = FencedResource.start()) {
            assertThatThrownBy(() -> FencedClient.connect(r.address(), "two words"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("without spaces");
        }
    }

    @Test
    void resumptionAfterAFaultIsTheFirstWriteAcceptedAfterIt() throws Exception {
        try (FencedResource r = FencedResource.start()) {
            assertThat(r.firstAcceptAfter(System.nanoTime())).isEqualTo(-1);
            r.write("a", 1);
            long healed = System.nanoTime();
            Thread.sleep(5);
            assertThat(r.firstAcceptAfter(healed)).as("nothing accepted since").isEqualTo(-1);
            assertThat(r.write("a", 0)).isFalse();
            assertThat(r.firstAcceptAfter(healed)).as("a refused write is no resumption").isEqualTo(-1);
            r.write("b", 2);
            long first = r.firstAcceptAfter(healed);
            assertThat(first).isGreaterThan(healed).isEqualTo(r.lastAcceptNanos());
            r.write("b", 3);
            assertThat(r.firstAcceptAfter(healed)).isEqualTo(first);
        }
    }

    @Test
    void anEnterWhoseTokenIsNotAboveEveryEarlierOneIsAFenceRegression() {
        try (FencedResource r = FencedResource.start()) {
            r.enter("a", 5);
            r.exit("a", 5);
            r.enter("b", 7);
            r.exit("b", 7);
            assertThat(r.report().fenceRegressions()).isZero();
            r.enter("a", 6); // tokens going down
            assertThat(r.report().fenceRegressions()).isEqualTo(1);
            assertThat(r.report().overlaps()).isZero();
            r.enter("b", 8);
            FencedResource.Report both = r.report();
            assertThat(both.overlaps()).isEqualTo(1);
            assertThat(both.maxInside()).isEqualTo(2);
            assertThat(both.insideNow()).containsExactly(java.util.Map.entry("a", 6L), java.util.Map.entry("b", 8L));
            r.exit("a", 6);
            r.exit("b", 8);
            r.enter("c", 8); // two holders (or leaders of one term) given the same token
            FencedResource.Report report = r.report();
            assertThat(report.fenceRegressions()).isEqualTo(2);
            assertThat(report.notes()).anySatisfy(n -> assertThat(n).contains("a entered with token 6, not above 7"))
                    .anySatisfy(n -> assertThat(n).contains("c entered with token 8, not above 8"));
            assertThat(report.insideNow()).containsOnlyKeys("c");
            assertThat(report.protocolErrors()).isZero();
        }
    }

    @Test
    void helloWaitsForGoSoThatEveryClientStartsTogether() throws Exception {
        try (FencedResource r = FencedResource.start();
             FencedClient a = FencedClient.connect(r.address(), "a");
             FencedClient b = FencedClient.connect(r.address(), "b")) {
            java.util.concurrent.CompletableFuture<Void> started = java.util.concurrent.CompletableFuture.allOf(
                    java.util.concurrent.CompletableFuture.runAsync(a::awaitStart),
                    java.util.concurrent.CompletableFuture.runAsync(b::awaitStart));
            assertThat(r.awaitGreetings(2, java.time.Duration.ofSeconds(5))).isTrue();
            assertThat(r.awaitGreetings(3, java.time.Duration.ofMillis(100))).isFalse();
            Thread.sleep(100);
            assertThat(started).isNotDone();
            r.go();
            started.get(5, TimeUnit.SECONDS);
            a.enter(1);
            assertThat(r.report().enters()).containsOnlyKeys("a");
        }
    }

    @Test
    void aRecordingResourceKeepsEveryEventInOrderAndWaitsForOne() throws Exception {
        try (FencedResource r = FencedResource.recording(); FencedResource plain = FencedResource.start()) {
            r.enter("a", 1);
            assertThat(r.write("a", 1)).isTrue();
            r.enter("b", 2);
            assertThat(r.write("b", 2)).isTrue();
            assertThat(r.write("a", 1)).isFalse();
            r.exit("a", 1);
            assertThat(r.events()).extracting(FencedResource.Event::verb)
                    .containsExactly("ENTER", "WRITE", "ENTER", "WRITE", "WRITE", "EXIT");
            assertThat(r.events("WRITE")).extracting(FencedResource.Event::accepted).containsExactly(true, true, false);
            assertThat(r.await(1, "ENTER", null, java.time.Duration.ZERO)).get()
                    .extracting(FencedResource.Event::client).isEqualTo("b");
            assertThat(r.await(0, "EXIT", "b", java.time.Duration.ofMillis(50))).isEmpty();
            java.util.concurrent.CompletableFuture<java.util.Optional<FencedResource.Event>> later =
                    java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                        try {
                            return r.await(6, "EXIT", "b", java.time.Duration.ofSeconds(5));
                        } catch (InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    });
            r.exit("b", 2);
            assertThat(later.get(5, TimeUnit.SECONDS)).get().extracting(FencedResource.Event::token).isEqualTo(2L);
            plain.enter("a", 1);
            assertThat(plain.events()).as("only a recording resource keeps events").isEmpty();
        }
    }
}
