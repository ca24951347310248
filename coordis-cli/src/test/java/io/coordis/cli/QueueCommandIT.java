package io.coordis.cli;

import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis queue ...} in its own JVM against a real redis-server, with a foreign client beside it. */
class QueueCommandIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private RespClient foreign;

    @BeforeEach
    void connect() {
        foreign = RespClient.connect(redis.server());
    }

    @AfterEach
    void close() {
        foreign.close();
    }

    /** Runs {@code coordis queue SUB -u URL ARGS...} to completion. */
    private CliProcess cli(String... args) {
        String[] ordered = new String[args.length + 3];
        ordered[0] = "queue";
        ordered[1] = args[0];
        ordered[2] = "-u";
        ordered[3] = redis.uri();
        System.arraycopy(args, 1, ordered, 4, args.length - 1);
        CliProcess p = CliProcess.start(ordered);
        p.exitCode(); // every use here runs to completion
        return p;
    }

    @Test
    void pushThenPopFifoAndLifoWithPayloadAloneOnStdout() {
        try (CliProcess push = cli("push", "jobs", "a", "b", "c")) {
            assertThat(push.exitCode()).isEqualTo(0);
            assertThat(push.stdout()).isEqualTo("3\n");
        }
        assertThat(foreign.command("LRANGE", "jobs", "0", "-1")).isEqualTo(List.of("c", "b", "a"));
        try (CliProcess pop = cli("pop", "jobs")) {
            assertThat(pop.exitCode()).isEqualTo(0);
            assertThat(pop.stdout()).isEqualTo("a\n");
            assertThat(pop.stderr()).isEmpty();
        }
        try (CliProcess pop = cli("pop", "--lifo", "jobs")) {
            assertThat(pop.stdout()).isEqualTo("c\n");
        }
        foreign.command("RPOP", "jobs");
        try (CliProcess empty = cli("pop", "--wait", "200ms", "jobs")) {
            assertThat(empty.exitCode()).isEqualTo(1);
            assertThat(empty.stdout()).isEmpty();
        }
    }

    @Test
    void pushFromStdinOneMessagePerLine() {
        try (CliProcess push = CliProcess.startWithInput("first line\nsecond\r\nthird\n", "queue", "push", "-u",
                redis.uri(), "lines", "-")) {
            assertThat(push.exitCode()).as(push.stderr()).isEqualTo(0);
            assertThat(push.stdout()).isEqualTo("3\n");
        }
        assertThat(foreign.command("RPOP", "lines")).isEqualTo("first line");
        assertThat(foreign.command("RPOP", "lines")).isEqualTo("second");
        assertThat(foreign.command("RPOP", "lines")).isEqualTo("third");
    }

    @Test
    void reliablePopThenAckByIdFromAnotherProcess() {
        foreign.command("LPUSH", "work", "job \"1\"");
        String id;
        try (CliProcess pop = cli("pop", "--reliable", "-o", "json", "work")) {
            assertThat(pop.exitCode()).as(pop.stderr()).isEqualTo(0);
            Matcher m = Pattern.compile("\\{\"payload\":\"job \\\\\"1\\\\\"\",\"id\":\"([0-9a-f]+/\\d+/\\d+)\",\"attempts\":1}\n")
                    .matcher(pop.stdout());
            assertThat(m.matches()).as(pop.stdout()).isTrue();
            id = m.group(1);
        }
        assertThat(foreign.command("LLEN", "work")).isEqualTo(0L);
        try (CliProcess stats = cli("stats", "work")) {
            assertThat(stats.stdout()).contains("depth 0").contains("in-flight 1").contains(" alive in-flight 1");
        }
        try (CliProcess ack = cli("ack", "work", id)) {
            assertThat(ack.exitCode()).isEqualTo(0);
            assertThat(ack.stdout()).isEqualTo("acked\n");
        }
        try (CliProcess again = cli("ack", "work", id)) {
            assertThat(again.exitCode()).isEqualTo(0);
            assertThat(again.stdout()).isEqualTo("already settled\n");
        }
        try (CliProcess stats = cli("stats", "-o", "json", "work")) {
            assertThat(stats.stdout()).contains("\"depth\":0").contains("\"in_flight\":0").contains("\"dead\":0");
        }
    }

    @Test
    void unackedReliablePopComesBackAfterVisibilityAndStaleRequeue() throws Exception {
        foreign.command("LPUSH", "vis", "m");
        String id;
        try (CliProcess pop = cli("pop", "--reliable", "--visibility", "500ms", "vis")) {
            assertThat(pop.exitCode()).isEqualTo(0);
            assertThat(pop.stdout()).isEqualTo("m\n");
            Matcher m = Pattern.compile("delivery (\\S+) ").matcher(pop.stderr());
            assertThat(m.find()).as(pop.stderr()).isTrue();
            id = m.group(1);
        }
        Thread.sleep(800);
        try (CliProcess requeue = cli("requeue", "--stale", "vis")) {
            assertThat(requeue.exitCode()).as(requeue.stderr()).isEqualTo(0);
            assertThat(requeue.stdout()).isEqualTo("1\n");
        }
        assertThat(foreign.command("RPOP", "vis")).isEqualTo("m");
        try (CliProcess late = cli("ack", "vis", id)) {
            assertThat(late.exitCode()).isEqualTo(1);
            assertThat(late.stdout()).isEqualTo("gone\n");
            assertThat(late.stderr()).contains("no longer held");
        }
    }

    @Test
    void workAcksOnSuccessDeadLettersRepeatedFailuresAndRequeueDeadBringsThemBack() {
        foreign.command("LPUSH", "tasks", "ok-1", "fail", "ok-2");
        try (CliProcess work = cli("work", "--drain", "--wait", "1s", "--max-attempts", "2", "-c", "2", "tasks", "--",
                "sh", "-c", "read m; echo \"$COORDIS_ATTEMPTS $m\"; [ \"$m\" != fail ]")) {
            assertThat(work.exitCode()).as(work.stderr()).isEqualTo(0);
            assertThat(work.stdout().lines().sorted().toList()).containsExactly("1 fail", "1 ok-1", "1 ok-2", "2 fail");
            assertThat(work.stderr()).contains("failed (exit 1, attempt 2): dead lettered");
        }
        assertThat(foreign.command("LRANGE", "{tasks}:dead", "0", "-1")).isEqualTo(List.of("fail"));
        assertThat(foreign.command("LLEN", "tasks")).isEqualTo(0L);
        try (CliProcess requeue = cli("requeue", "--dead", "tasks")) {
            assertThat(requeue.stdout()).isEqualTo("1\n");
        }
        assertThat(foreign.command("RPOP", "tasks")).isEqualTo("fail");
    }

    /**
     * A worker killed with SIGKILL mid-message says no goodbye: its message comes back once its heartbeat,
     * set by --heartbeat, has expired, and another worker runs it again (attempt 2).
     */
    @Test
    void workKilledMidMessageGetsItsMessageBackAfterTheHeartbeatGivenExpires() throws Exception {
        foreign.command("LPUSH", "crash", "m");
        long killed;
        try (CliProcess doomed = CliProcess.start("queue", "work", "-u", redis.uri(), "--heartbeat", "1s", "crash",
                "--", "sh", "-c", "read m; echo \"took $m\"; exec sleep 30")) {
            doomed.awaitStdout("took m");
            @SuppressWarnings("unchecked")
            List<String> beats = (List<String>) foreign.command("KEYS", "{crash}:hb:*");
            assertThat(beats).hasSize(1);
            assertThat((Long) foreign.command("PTTL", beats.get(0))).as("the heartbeat's TTL in ms")
                    .isBetween(1L, 1000L);
            List<ProcessHandle> command = ProcessHandle.of(doomed.pid()).orElseThrow().descendants().toList();
            assertThat(command).isNotEmpty();
            doomed.close(); // SIGKILL: no ack, no nack, no goodbye
            command.forEach(ProcessHandle::destroyForcibly);
            killed = System.nanoTime();
        }
        assertThat(foreign.command("LLEN", "crash")).as("the message is still held by the dead worker").isEqualTo(0L);
        try (CliProcess survivor = cli("work", "--drain", "--wait", "8s", "crash", "--",
                "sh", "-c", "read m; echo \"$COORDIS_ATTEMPTS $m\"")) {
            assertThat(survivor.exitCode()).as(survivor.stderr()).isEqualTo(0);
            assertThat(survivor.stdout()).isEqualTo("2 m\n");
        }
        System.out.printf("message back after %d ms%n", (System.nanoTime() - killed) / 1_000_000);
        assertThat(foreign.command("LLEN", "{crash}:dead")).isEqualTo(0L);
    }

    @Test
    void workRefusesAHeartbeatTooShortToRenew() {
        try (CliProcess work = cli("work", "--heartbeat", "100ms", "q", "--", "cat")) {
            assertThat(work.exitCode()).isEqualTo(64);
            assertThat(work.stderr()).contains("invalid --heartbeat: heartbeat ttl must be at least 300ms, was 100ms");
        }
    }

    @Test
    void clearErrorsForWrongTypeOversizeAndRedisDown() {
        foreign.command("SET", "notalist", "x");
        try (CliProcess push = cli("push", "notalist", "m")) {
            assertThat(push.exitCode()).isEqualTo(65);
            assertThat(push.stderr()).contains("'notalist' holds a string");
        }
        try (CliProcess big = cli("push", "--max-size", "3", "small", "ok", "toolong")) {
            assertThat(big.exitCode()).isEqualTo(64);
            assertThat(big.stderr()).contains("over the maximum of 3").contains("nothing was pushed");
        }
        assertThat(foreign.command("EXISTS", "small")).isEqualTo(0L);
        try (CliProcess down = CliProcess.start("queue", "pop", "-u", "redis://127.0.0.1:1", "q")) {
            assertThat(down.exitCode()).isEqualTo(69);
        }
        try (CliProcess bad = cli("ack", "q", "not-an-id")) {
            assertThat(bad.exitCode()).isEqualTo(64);
            assertThat(bad.stderr()).contains("is not a delivery id");
        }
        try (CliProcess noCmd = cli("work", "q")) {
            assertThat(noCmd.exitCode()).isEqualTo(64);
            assertThat(noCmd.stderr()).contains("missing command");
        }
    }
}
