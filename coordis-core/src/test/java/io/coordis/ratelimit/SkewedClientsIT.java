package io.coordis.ratelimit;

import io.coordis.testkit.ChildJvm;
import io.coordis.testkit.ContinuousIntegration;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * Four JVMs asking one limiter for ten times its rate, two with clocks an hour ahead and two an hour behind
 * ({@code faketime}): the limiter grants rate × time + burst within 1 %, since it only reads Redis's clock. The
 * negative control, a limiter that scores grants by the client's clock, fails the same check under the same skew.
 * Without {@code faketime} the test is skipped, except in CI, where it fails.
 */
class SkewedClientsIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static final String LIMIT = "25/1s";
    private static final List<String> SKEWS = List.of("+1h", "-1h", "+1h", "-1h");

    @BeforeAll
    static void needsFaketime() {
        boolean present = faketime() != null;
        if (!present && ContinuousIntegration.running()) {
            fail("faketime is not installed: CI must install it (Debian package faketime) to skew clients' clocks");
        }
        Assumptions.assumeTrue(present, "faketime is not installed (Debian package faketime): cannot skew clocks");
    }

    @Test
    @Timeout(60)
    void skewedClientsTogetherGetRateTimesTimePlusBurst() throws Exception {
        Run run = run("coordis", "rl:skewed", 20);
        System.out.println("SkewedClientsIT: Redis's clock: " + run);
        assertThat(run.withinOnePercent()).as(run.toString()).isTrue();
    }

    @Test
    @Timeout(60)
    void aLimiterScoringByTheClientsClockFailsTheSameCheck() throws Exception {
        Run run = run("client-clock", "rl:control", 6);
        System.out.println("SkewedClientsIT: the clients' clocks: " + run);
        assertThat(run.withinOnePercent()).as(run.toString()).isFalse();
    }

    /** What the children were granted in the window from the first request to the last reply, by Redis's clock. */
    record Run(long granted, long first, long last) {
        double allowed() {
            RateLimit limit = RateLimit.parse(LIMIT);
            return limit.burst() + (last - first) / (limit.interval().toNanos() / 1e3);
        }

        boolean withinOnePercent() {
            return Math.abs(granted - allowed()) <= allowed() * 0.01 + 1;
        }

        @Override
        public String toString() {
            return String.format("%d granted in %.3f s, rate × time + burst = %.1f", granted, (last - first) / 1e6,
                    allowed());
        }
    }

    private static Run run(String mode, String name, int seconds) throws Exception {
        RateLimit limit = RateLimit.parse(LIMIT);
        int asks = limit.permits() * 10 / SKEWS.size(); // per child: together about ten times the limit
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < SKEWS.size(); i++) {
                children.add(ChildJvm.start(mode + "-" + i, skewedJava(SKEWS.get(i)), RateProcess.class, List.of(),
                        List.of("host=" + redis.server().host(), "port=" + redis.server().port(),
                                "url=" + redis.uri(), "mode=" + mode, "name=" + name, "limit=" + LIMIT,
                                "asks=" + asks, "seconds=" + seconds)));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY", Duration.ofSeconds(60));
            }
            for (ChildJvm c : children) {
                c.send("GO");
            }
            long granted = 0;
            long first = Long.MAX_VALUE;
            long last = Long.MIN_VALUE;
            for (ChildJvm c : children) {
                String[] done = c.awaitLine("DONE", Duration.ofSeconds(seconds + 30L)).split(" ");
                granted += Long.parseLong(done[1]);
                first = Math.min(first, Long.parseLong(done[2]));
                last = Math.max(last, Long.parseLong(done[3]));
                assertThat(Math.abs(Long.parseLong(done[4]))).as("the clock of child %d is skewed", children.indexOf(c))
                        .isGreaterThan(Duration.ofMinutes(59).toMillis());
            }
            return new Run(granted, first, last);
        } finally {
            for (ChildJvm c : children) {
                c.close();
            }
        }
    }

    /**
     * A {@code java} that runs with its wall clock moved by {@code skew}; monotonic time stays real, and timed waits
     * on a condition variable keep their length (without {@code FAKETIME_FORCE_MONOTONIC_FIX=0} they return at once).
     */
    private static Path skewedJava(String skew) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path script = Files.createTempFile("coordis-java-" + skew.replace('+', 'p').replace('-', 'm') + "-", ".sh",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        script.toFile().deleteOnExit();
        Files.writeString(script, "#!/bin/sh\nFAKETIME_DONT_FAKE_MONOTONIC=1 FAKETIME_FORCE_MONOTONIC_FIX=0 exec "
                + faketime() + " -f '" + skew + "' '" + java + "' \"$@\"\n");
        return script;
    }

    /** The {@code faketime} executable on the path, or {@code null}. */
    private static String faketime() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, "faketime");
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }
}
