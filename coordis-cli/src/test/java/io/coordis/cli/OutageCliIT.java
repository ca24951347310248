package io.coordis.cli;

import io.coordis.cli.support.ExitCodes;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code -w} is a budget for the whole command: Redis down or restarting when the command starts, Redlock masters
 * too fresh to vote, a majority of masters down for a moment, are waited out within it; {@code -n} still gives up at
 * once. Real processes on real servers, as a cron job would meet them.
 */
class OutageCliIT {
    private static final Duration DOWN = Duration.ofMillis(1500);

    @Test
    void aLockThatMayWaitRidesOutARedisRestart() {
        try (RedisServer server = RedisServer.builder().appendOnly(true).start()) {
            server.kill();
            try (CliProcess cli = CliProcess.start("-u", server.uri(), "lock", "outage:job", "-w", "30s", "--", "true")) {
                server.restart(DOWN);
                assertThat(cli.exitCode(Duration.ofSeconds(60))).as(cli.stderr()).isEqualTo(ExitCodes.OK);
                assertThat(cli.stderr()).contains("acquired 'outage:job'");
            }
        }
    }

    @Test
    void aRateLimitedCommandThatMayWaitRidesOutARedisRestart() {
        try (RedisServer server = RedisServer.builder().appendOnly(true).start()) {
            server.kill();
            try (CliProcess cli = CliProcess.start("-u", server.uri(), "rate", "outage:rate", "--limit", "1/1s",
                    "-w", "30s", "--", "true")) {
                server.restart(DOWN);
                assertThat(cli.exitCode(Duration.ofSeconds(60))).as(cli.stderr()).isEqualTo(ExitCodes.OK);
            }
        }
    }

    @Test
    void aRateLimitedCommandWhoseWaitIsSpentOnAnOutageIs69NamingIt() {
        try (RedisServer server = RedisServer.builder().start()) {
            server.kill();
            long start = System.nanoTime();
            try (CliProcess cli = CliProcess.start("-u", server.uri(), "rate", "outage:rate", "--limit", "1/1s",
                    "-w", "2s", "--", "true")) {
                assertThat(cli.exitCode()).as(cli.stderr()).isEqualTo(ExitCodes.UNAVAILABLE);
                assertThat(cli.stderr()).contains(server.address()).contains("unavailable");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the wait was spent first")
                        .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void freshRedlockMastersAreWaitedForWithinTheWait() {
        List<RedisServer> servers = masters(5);
        try (CliProcess cli = CliProcess.start(args(servers, "lock", "outage:fresh", "--ttl", "2s", "-w", "30s",
                "--", "true"))) {
            assertThat(cli.exitCode(Duration.ofSeconds(60))).as(cli.stderr()).isEqualTo(ExitCodes.OK);
            // the masters started one after another: the wait ends once the first three are trusted
            assertThat(cli.stderr()).contains("acquired 'outage:fresh'").containsPattern("on [345] of 5 nodes");
        } finally {
            servers.forEach(RedisServer::close);
        }
    }

    @Test
    void threeOfFiveMastersBackWithinTheWaitAreWaitedFor() {
        List<RedisServer> servers = masters(5);
        try {
            for (RedisServer s : servers.subList(0, 3)) {
                s.kill();
            }
            try (CliProcess cli = CliProcess.start(args(servers, "lock", "outage:majority", "--ttl", "2s", "-w", "30s",
                    "--", "true"))) {
                for (RedisServer s : servers.subList(0, 3)) {
                    s.restart(s == servers.get(0) ? DOWN : Duration.ZERO);
                }
                assertThat(cli.exitCode(Duration.ofSeconds(60))).as(cli.stderr()).isEqualTo(ExitCodes.OK);
                assertThat(cli.stderr()).contains("acquired 'outage:majority'");
            }
        } finally {
            servers.forEach(RedisServer::close);
        }
    }

    @Test
    void nonblockOnADownNodeIs69AtOnce() {
        try (RedisServer server = RedisServer.builder().start()) {
            server.kill();
            long start = System.nanoTime();
            try (CliProcess cli = CliProcess.start("-u", server.uri(), "lock", "outage:job", "-n", "--", "true")) {
                assertThat(cli.exitCode()).as(cli.stderr()).isEqualTo(ExitCodes.UNAVAILABLE);
                assertThat(cli.stderr()).contains("unavailable");
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                System.out.println("-n on a down node: exit 69 after " + took.toMillis() + " ms");
            }
        }
    }

    @Test
    void aWaitSpentOnAnOutageIs69NamingIt() {
        try (RedisServer server = RedisServer.builder().start()) {
            server.kill();
            long start = System.nanoTime();
            try (CliProcess cli = CliProcess.start("-u", server.uri(), "lock", "outage:job", "-w", "2s", "--", "true")) {
                assertThat(cli.exitCode()).as(cli.stderr()).isEqualTo(ExitCodes.UNAVAILABLE);
                assertThat(cli.stderr()).contains(server.address()).contains("unavailable");
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the wait was spent first")
                        .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
            }
        }
    }

    private static List<RedisServer> masters(int n) {
        List<RedisServer> servers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            servers.add(RedisServer.builder().start());
        }
        return servers;
    }

    private static String[] args(List<RedisServer> servers, String... rest) {
        List<String> args = new ArrayList<>();
        for (RedisServer s : servers) {
            args.add("-u");
            args.add(s.uri());
        }
        args.addAll(List.of(rest));
        return args.toArray(String[]::new);
    }
}
