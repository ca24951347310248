package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.cli.support.ExitCodes;
import io.coordis.election.ElectionOptions;
import io.coordis.election.Leader;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis elect} and {@code coordis leader} in their own JVMs against a real redis-server. */
class ElectIT {
    /** A command that says it runs, then runs until SIGTERM, which it reports before exiting 0. */
    private static final String UNTIL_TERM =
            "trap 'echo got-term; exit 0' TERM; echo ready; while true; do sleep 0.1; done";

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis client;

    @BeforeEach
    void connect() {
        client = TestClients.connect(redis.uri());
    }

    @AfterEach
    void disconnect() {
        client.close();
    }

    private Optional<Leader> leader(String name) {
        return client.election(name).leader();
    }

    /** The last term the election {@code name} gave, as its counter holds it. */
    private static long term(String name) {
        return Long.parseLong((String) redis.server().command("GET", Prefixed.derived(name, "term")));
    }

    @Test
    void runsTheCommandWhileLeaderWithTheTermAndExitsWithItsStatus() {
        try (CliProcess cli = CliProcess.start("elect", "-u", redis.uri(), "--id", "web-1", "it:el:exit", "--",
                "sh", "-c", "echo \"$COORDIS_ELECTION_NAME $COORDIS_ELECTION_TERM $COORDIS_ELECTION_ID\"; exit 3")) {
            assertThat(cli.exitCode()).isEqualTo(3);
            long term = term("it:el:exit");
            assertThat(cli.stdout()).isEqualTo("it:el:exit " + term + " web-1\n");
            assertThat(cli.stderr()).isEqualTo("coordis: elected leader of 'it:el:exit' as web-1 (term " + term + ")\n");
        }
        assertThat(leader("it:el:exit")).as("resigned when the command ended").isEmpty();
    }

    @Test
    void aSecondCandidateWaitsAndTakesOverAtOnceWhenTheFirstCommandEnds() throws IOException {
        Path go = CliProcess.signalFile();
        try (CliProcess first = CliProcess.start("elect", "-u", redis.uri(), "--id", "a", "--ttl", "30s",
                "it:el:wait", "--", "sh", "-c", "echo running; while [ ! -e \"$0\" ]; do sleep 0.05; done", go.toString())) {
            first.awaitStdout("running");
            long firstTerm = term("it:el:wait");
            assertThat(leader("it:el:wait").orElseThrow().describe()).isEqualTo("leader=a term=" + firstTerm);
            try (CliProcess second = CliProcess.start("elect", "-u", redis.uri(), "--id", "b", "--ttl", "30s",
                    "it:el:wait", "--", "sh", "-c", "echo \"term $COORDIS_ELECTION_TERM\"")) {
                second.awaitStderr("campaigning for 'it:el:wait' as b; led by a (term " + firstTerm + ")");
                CliProcess.sleep(300);
                assertThat(second.stdout()).isEmpty();
                try (CliProcess leaderCli = CliProcess.start("leader", "-u", redis.uri(), "it:el:wait")) {
                    assertThat(leaderCli.exitCode()).isZero();
                    assertThat(leaderCli.stdout()).isEqualTo("leader=a term=" + firstTerm + "\n");
                }
                try (CliProcess leaderJson = CliProcess.start("leader", "-u", redis.uri(), "it:el:wait", "-o", "json")) {
                    assertThat(leaderJson.exitCode()).isZero();
                    java.util.Map<String, Object> doc = TestJson.object(leaderJson.stdout().strip());
                    assertThat(doc.get("name")).isEqualTo("it:el:wait");
                    assertThat(doc.get("leader")).isEqualTo("a");
                    assertThat(((Number) doc.get("term")).longValue()).isEqualTo(firstTerm);
                    assertThat(((Number) doc.get("ttlMillis")).longValue()).isBetween(1L, 30_000L);
                }
                long ended = System.nanoTime();
                Files.createFile(go);
                assertThat(first.exitCode()).isZero();
                assertThat(second.exitCode()).isZero();
                assertThat(second.stdout()).isEqualTo("term " + term("it:el:wait") + "\n");
                assertThat(term("it:el:wait")).isGreaterThan(firstTerm);
                assertThat(Duration.ofNanos(System.nanoTime() - ended)).as("hand-over, not the 30s TTL")
                        .isLessThan(Duration.ofSeconds(10));
            }
        }
        try (CliProcess leaderCli = CliProcess.start("leader", "-u", redis.uri(), "it:el:wait")) {
            assertThat(leaderCli.exitCode()).isEqualTo(ExitCodes.NO_LEADER);
            assertThat(leaderCli.stdout()).isEmpty();
            assertThat(leaderCli.stderr()).isEqualTo("coordis: nobody leads 'it:el:wait'\n");
        }
    }

    @Test
    void lostLeadershipStopsTheCommandWithSigtermAndExits75() {
        try (CliProcess cli = CliProcess.start("elect", "-u", redis.uri(), "--ttl", "1s", "it:el:lost", "--",
                "sh", "-c", UNTIL_TERM)) {
            cli.awaitStdout("ready");
            long taken = System.nanoTime();
            redis.server().command("SET", Prefixed.key("it:el:lost"), "someone-else");
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.LOCK_LOST);
            assertThat(Duration.ofNanos(System.nanoTime() - taken)).isLessThan(Duration.ofSeconds(5));
            assertThat(cli.stdout()).isEqualTo("ready\ngot-term\n");
            assertThat(cli.stderr()).contains("lost leadership of 'it:el:lost' (term " + term("it:el:lost") + ")",
                            "stopping it")
                    .doesNotContain("\tat ");
        }
        assertThat(redis.server().command("GET", Prefixed.key("it:el:lost"))).isEqualTo("someone-else");
    }

    @Test
    void sigtermToCoordisStopsTheCommandAndResignsAtOnce() {
        try (CliProcess cli = CliProcess.start("elect", "-u", redis.uri(), "--ttl", "60s", "it:el:term", "--",
                "sh", "-c", UNTIL_TERM)) {
            cli.awaitStdout("ready");
            assertThat(leader("it:el:term")).isPresent();
            cli.terminate();
            assertThat(cli.exitCode()).isEqualTo(128 + 15);
            assertThat(cli.stdout()).as(cli.stderr()).isEqualTo("ready\ngot-term\n");
            assertThat(cli.stderr()).doesNotContain("lost leadership");
        }
        assertThat(leader("it:el:term")).as("resigned, not left to its 60s TTL").isEmpty();
    }

    @Test
    void notElectedWithinTheWaitExits1() throws InterruptedException {
        LeaderElection mine = client.election("it:el:busy", ElectionOptions.defaults().withCandidateId("java"));
        Leadership l = mine.campaign(Duration.ofSeconds(1)).orElseThrow();
        try (CliProcess cli = CliProcess.start("elect", "-u", redis.uri(), "-w", "300ms", "it:el:busy", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.NOT_ELECTED);
            assertThat(cli.stderr()).contains("campaigning up to 300ms for 'it:el:busy'", "led by java (term " + l.term() + ")",
                    "not elected leader of 'it:el:busy' within 300ms");
        }
        assertThat(l.isHeld()).isTrue();
    }

    @Test
    void observePrintsEveryChangeOfLeaderAndTerm() throws InterruptedException {
        try (CliProcess cli = CliProcess.start("elect", "-u", redis.uri(), "--observe", "it:el:observe")) {
            cli.awaitStdout("leader=- term=-\n");
            LeaderElection mine = client.election("it:el:observe", ElectionOptions.defaults().withCandidateId("java"));
            Leadership l = mine.campaign(Duration.ofSeconds(1)).orElseThrow();
            cli.awaitStdout("leader=java term=" + l.term() + "\n");
            l.resign();
            cli.awaitStdout("leader=java term=" + l.term() + "\nleader=- term=-\n");
            Leadership again = mine.campaign(Duration.ofSeconds(1)).orElseThrow();
            cli.awaitStdout("leader=- term=-\nleader=java term=" + again.term() + "\n");
            assertThat(cli.stdout()).isEqualTo("leader=- term=-\nleader=java term=" + l.term() + "\nleader=- term=-\nleader=java term="
                    + again.term() + "\n");
            cli.terminate();
            assertThat(cli.exitCode()).isEqualTo(128 + 15);
        }
    }

    @Test
    void badUsageExits64WithAMessageThatSaysWhatToDo() {
        String[][] cases = {
                {"elect", "-u", redis.uri(), "-u", redis.uri() + "/1", "it:el:x", "--", "true"},
                {"elect", "-u", redis.uri(), "it:el:x"},
                {"elect", "-u", redis.uri(), "--observe", "it:el:x", "--", "true"},
                {"elect", "-u", redis.uri(), "--ttl", "100ms", "it:el:x", "--", "true"},
                {"elect", "-u", redis.uri(), "--id", "a b", "it:el:x", "--", "true"},
                {"leader", "-u", redis.uri(), " "},
        };
        String[] expected = {"runs on one Redis", "missing command", "--observe runs no command",
                "election ttl must be at least 300ms", "must not contain blanks", "must not be blank"};
        for (int i = 0; i < cases.length; i++) {
            try (CliProcess cli = CliProcess.start(cases[i])) {
                assertThat(cli.exitCode()).as(String.join(" ", cases[i])).isEqualTo(ExitCodes.USAGE);
                assertThat(cli.stderr()).contains(expected[i]).doesNotContain("\tat ");
            }
        }
        assertThat(leader("it:el:x")).isEmpty();
    }
}
