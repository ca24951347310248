package io.coordis.cli;

import io.coordis.testkit.Prefixed;
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
        assertThat(foreign.command("LRANGE", Prefixed.key("jobs"), "0", "-1")).isEqualTo(List.of("c", "b", "a"));
        try (CliProcess pop = cli("pop", "jobs")) {
            assertThat(pop.exitCode()).isEqualTo(0);
            assertThat(pop.stdout()).isEqualTo("a\n");
            assertThat(pop.stderr()).isEmpty();
        }
        try (CliProcess pop = cli("pop", "--lifo", "jobs")) {
            assertThat(pop.stdout()).isEqualTo("c\n");
        }
        foreign.command("RPOP", Prefixed.key("jobs"));
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
        assertThat(foreign.command("RPOP", Prefixed.key("lines"))).isEqualTo("first line");
        assertThat(foreign.command("RPOP", Prefixed.key("lines"))).isEqualTo("second");
        assertThat(foreign.command("RPOP", Prefixed.key("lines"))).isEqualTo("third");
    }

    @Test
    void reliablePopThenAckByIdFromAnotherProcess() {
        foreign.command("LPUSH", Prefixed.key("work"), "job \"1\"");
        String id;
        try (CliProcess pop = cli("pop", "--reliable", "-o", "json", "work")) {
            assertThat(pop.exitCode()).as(pop.stderr()).isEqualTo(0);
            Matcher m = Pattern.compile("\\{\"payload\":\"job \\\\\"1\\\\\"\",\"id\":\"([0-9a-f]+/\\d+/\\d+)\",\"attempts\":1}\n")
                    .matcher(pop.stdout());
            assertThat(m.matches()).as(pop.stdout()).isTrue();
            id = m.group(1);
        }
        assertThat(foreign.command("LLEN", Prefixed.key("work"))).isEqualTo(0L);
        try (CliProcess stats = cli("stats", "work")) {
            assertThat(stats.stdout()).contains("depth 0").contains("in-flight 1").contains(" alive in-flight 1")
                    .contains("settled 0");
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
            assertThat(stats.stdout()).contains("\"depth\":0").contains("\"in_flight\":0").contains("\"dead\":0")
                    .as("acked once, however often asked").contains("\"settled\":1");
        }
    }

    @Test
    void unackedReliablePopComesBackAfterVisibilityAndStaleRequeue() throws Exception {
        foreign.command("LPUSH", Prefixed.key("vis"), "m");
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
        assertThat(foreign.command("RPOP", Prefixed.key("vis"))).isEqualTo("m");
        try (CliProcess late = cli("ack", "vis", id)) {
            assertThat(late.exitCode()).isEqualTo(1);
            assertThat(late.stdout()).isEqualTo("gone\n");
            assertThat(late.stderr()).contains("no longer held");
        }
    }

    @Test
    void workAcksOnSuccessDeadLettersRepeatedFailuresAndRequeueDeadBringsThemBack() {
        foreign.command("LPUSH", Prefixed.key("tasks"), "ok-1", "fail", "ok-2");
        try (CliProcess work = cli("work", "--drain", "--wait", "1s", "--max-attempts", "2", "-c", "2", "tasks", "--",
                "sh", "-c", "read m; echo \"$COORDIS_ATTEMPTS $m\"; [ \"$m\" != fail ]")) {
            assertThat(work.exitCode()).as(work.stderr()).isEqualTo(0);
            assertThat(work.stdout().lines().sorted().toList()).containsExactly("1 fail", "1 ok-1", "1 ok-2", "2 fail");
            assertThat(work.stderr()).contains("failed (exit 1, attempt 2): dead lettered");
        }
        assertThat(foreign.command("LRANGE", Prefixed.derived("tasks", "dead"), "0", "-1")).isEqualTo(List.of("fail"));
        assertThat(foreign.command("LLEN", Prefixed.key("tasks"))).isEqualTo(0L);
        try (CliProcess requeue = cli("requeue", "--dead", "tasks")) {
            assertThat(requeue.stdout()).isEqualTo("1\n");
        }
        assertThat(foreign.command("RPOP", Prefixed.key("tasks"))).isEqualTo("fail");
    }

    /**
     * A worker killed with SIGKILL mid-message says no goodbye: its message comes back once its heartbeat,
     * set by --heartbeat, has expired, and another worker runs it again (attempt 2).
     */
    @Test
    void workKilledMidMessageGetsItsMessageBackAfterTheHeartbeatGivenExpires() throws Exception {
        foreign.command("LPUSH", Prefixed.key("crash"), "m");
        long killed;
        try (CliProcess doomed = CliProcess.start("queue", "work", "-u", redis.uri(), "--heartbeat", "1s", "crash",
                "--", "sh", "-c", "read m; echo \"took $m\"; exec sleep 30")) {
            doomed.awaitStdout("took m");
            @SuppressWarnings("unchecked")
            List<String> beats = (List<String>) foreign.command("KEYS", Prefixed.derived("crash", "hb:*"));
            assertThat(beats).hasSize(1);
            assertThat((Long) foreign.command("PTTL", beats.get(0))).as("the heartbeat's TTL in ms")
                    .isBetween(1L, 1000L);
            List<ProcessHandle> command = ProcessHandle.of(doomed.pid()).orElseThrow().descendants().toList();
            assertThat(command).isNotEmpty();
            doomed.close(); // SIGKILL: no ack, no nack, no goodbye
            command.forEach(ProcessHandle::destroyForcibly);
            killed = System.nanoTime();
        }
        assertThat(foreign.command("LLEN", Prefixed.key("crash"))).as("the message is still held by the dead worker")
                .isEqualTo(0L);
        try (CliProcess survivor = cli("work", "--drain", "--wait", "8s", "crash", "--",
                "sh", "-c", "read m; echo \"$COORDIS_ATTEMPTS $m\"")) {
            assertThat(survivor.exitCode()).as(survivor.stderr()).isEqualTo(0);
            assertThat(survivor.stdout()).isEqualTo("2 m\n");
        }
        System.out.printf("message back after %d ms%n", (System.nanoTime() - killed) / 1_000_000);
        assertThat(foreign.command("LLEN", Prefixed.derived("crash", "dead"))).isEqualTo(0L);
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
        foreign.command("SET", Prefixed.key("notalist"), "x");
        try (CliProcess push = cli("push", "notalist", "m")) {
            assertThat(push.exitCode()).isEqualTo(65);
            assertThat(push.stderr()).contains("'" + Prefixed.key("notalist") + "' holds a string");
        }
        try (CliProcess big = cli("push", "--max-size", "3", "small", "ok", "toolong")) {
            assertThat(big.exitCode()).isEqualTo(64);
            assertThat(big.stderr()).contains("over the maximum of 3").contains("nothing was pushed");
        }
        assertThat(foreign.command("EXISTS", Prefixed.key("small"))).isEqualTo(0L);
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

    /** Pops one message reliably as JSON and answers its delivery id. */
    private String reliablePop(String queue, String... extra) {
        String[] args = new String[extra.length + 5];
        args[0] = "pop";
        args[1] = "--reliable";
        args[2] = "-o";
        args[3] = "json";
        System.arraycopy(extra, 0, args, 4, extra.length);
        args[args.length - 1] = queue;
        try (CliProcess pop = cli(args)) {
            assertThat(pop.exitCode()).as(pop.stderr()).isEqualTo(0);
            Matcher m = Pattern.compile("\"id\":\"([0-9a-f]+/\\d+/\\d+)\"").matcher(pop.stdout());
            assertThat(m.find()).as(pop.stdout()).isTrue();
            return m.group(1);
        }
    }

    @Test
    void nackRequeuesForAnotherAttemptThenDeadLettersAtTheMaximumAndARepeatChangesNothing() {
        foreign.command("LPUSH", Prefixed.key("retry"), "job");
        String first = reliablePop("retry");
        try (CliProcess nack = cli("nack", "retry", first, "--max-attempts", "2")) {
            assertThat(nack.exitCode()).as(nack.stderr()).isEqualTo(0);
            assertThat(nack.stdout()).isEqualTo("requeued\n");
        }
        try (CliProcess again = cli("nack", "retry", first, "--max-attempts", "2")) {
            assertThat(again.exitCode()).isEqualTo(0);
            assertThat(again.stdout()).as("a retried nack touches nothing").isEqualTo("already settled\n");
        }
        assertThat(foreign.command("LRANGE", Prefixed.key("retry"), "0", "-1")).isEqualTo(List.of("job"));
        try (CliProcess pop = cli("pop", "--reliable", "-o", "json", "retry")) {
            assertThat(pop.stdout()).contains("\"attempts\":2");
            Matcher m = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(pop.stdout());
            assertThat(m.find()).isTrue();
            try (CliProcess nack = cli("nack", "retry", m.group(1), "--max-attempts", "2")) {
                assertThat(nack.stdout()).isEqualTo("dead lettered\n");
            }
        }
        assertThat(foreign.command("LLEN", Prefixed.key("retry"))).isEqualTo(0L);
        assertThat(foreign.command("LRANGE", Prefixed.derived("retry", "dead"), "0", "-1")).isEqualTo(List.of("job"));
    }

    @Test
    void nackWithADelayKeepsTheMessageOutOfTheQueueUntilItIsDue() throws Exception {
        foreign.command("LPUSH", Prefixed.key("later"), "job");
        String id = reliablePop("later");
        try (CliProcess nack = cli("nack", "later", id, "--delay", "1s")) {
            assertThat(nack.exitCode()).as(nack.stderr()).isEqualTo(0);
            assertThat(nack.stdout()).isEqualTo("delayed\n");
        }
        assertThat(foreign.command("LLEN", Prefixed.key("later"))).as("not back before its delay").isEqualTo(0L);
        Thread.sleep(1300);
        try (CliProcess requeue = cli("requeue", "--stale", "later")) {
            assertThat(requeue.exitCode()).as(requeue.stderr()).isEqualTo(0);
        }
        assertThat(foreign.command("LRANGE", Prefixed.key("later"), "0", "-1")).isEqualTo(List.of("job"));
    }

    /** LIFO consumers take from the left: a nacked or recovered message goes back there, to be taken next. */
    @Test
    void lifoNackAndStaleRequeuePutMessagesBackWhereLifoConsumersTake() throws Exception {
        foreign.command("LPUSH", Prefixed.key("stack"), "old", "mid", "new");
        String newest = reliablePop("stack", "--lifo");
        try (CliProcess nack = cli("nack", "stack", newest, "--lifo")) {
            assertThat(nack.stdout()).isEqualTo("requeued\n");
        }
        assertThat(foreign.command("LINDEX", Prefixed.key("stack"), "0")).as("back at the left end").isEqualTo("new");

        String again = reliablePop("stack", "--lifo", "--visibility", "500ms");
        assertThat(foreign.command("LRANGE", Prefixed.key("stack"), "0", "-1")).isEqualTo(List.of("mid", "old"));
        Thread.sleep(800);
        try (CliProcess requeue = cli("requeue", "--stale", "--lifo", "--max-attempts", "2", "stack")) {
            assertThat(requeue.exitCode()).as(requeue.stderr()).isEqualTo(0);
            assertThat(requeue.stdout()).as("recovered, and dead lettered: its second failed delivery of 2 allowed")
                    .isEqualTo("1\n");
        }
        assertThat(again).isNotEmpty();
        assertThat(foreign.command("LRANGE", Prefixed.derived("stack", "dead"), "0", "-1")).isEqualTo(List.of("new"));
        assertThat(foreign.command("LRANGE", Prefixed.key("stack"), "0", "-1")).isEqualTo(List.of("mid", "old"));

        String mid = reliablePop("stack", "--lifo", "--visibility", "500ms");
        assertThat(mid).isNotEmpty();
        Thread.sleep(800);
        try (CliProcess requeue = cli("requeue", "--stale", "--lifo", "stack")) {
            assertThat(requeue.stdout()).isEqualTo("1\n");
        }
        assertThat(foreign.command("LRANGE", Prefixed.key("stack"), "0", "-1")).as("recovered at the left end")
                .isEqualTo(List.of("mid", "old"));
    }

    @Test
    void requeueOptionsThatDoNotFitAreUsageErrors() {
        try (CliProcess bad = cli("requeue", "--dead", "--lifo", "q")) {
            assertThat(bad.exitCode()).isEqualTo(64);
            assertThat(bad.stderr()).contains("--max-attempts and --lifo go with --stale");
        }
        try (CliProcess bad = cli("requeue", "--stale", "--max-attempts", "0", "q")) {
            assertThat(bad.exitCode()).isEqualTo(64);
            assertThat(bad.stderr()).contains("invalid --max-attempts").contains("at least 1");
        }
    }

    /** Two commands that each wait for the other to have started can only both finish when run side by side. */
    @Test
    void workWithConcurrencyTwoRunsTwoCommandsAtOnce() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("coordis-work-");
        foreign.command("LPUSH", Prefixed.key("pair"), "a", "b");
        String script = "read m; touch " + dir + "/$m; other=$([ \"$m\" = a ] && echo b || echo a); "
                + "for i in $(seq 1 100); do [ -e " + dir + "/$other ] && { echo \"$m saw $other\"; exit 0; }; "
                + "sleep 0.1; done; echo \"$m alone\"; exit 1";
        try (CliProcess work = cli("work", "--drain", "--wait", "1s", "--max-attempts", "1", "-c", "2", "pair", "--",
                "sh", "-c", script)) {
            assertThat(work.exitCode()).as(work.stderr()).isEqualTo(0);
            assertThat(work.stdout().lines().sorted().toList()).containsExactly("a saw b", "b saw a");
        }
        assertThat(foreign.command("LLEN", Prefixed.derived("pair", "dead"))).isEqualTo(0L);
    }

    @Test
    void statsNameEachConsumerWithARecentHeartbeat() {
        foreign.command("LPUSH", Prefixed.key("beat"), "m");
        long before = System.currentTimeMillis();
        reliablePop("beat");
        try (CliProcess stats = cli("stats", "-o", "json", "beat")) {
            Matcher m = Pattern.compile("\"last_heartbeat\":\"([^\"]+)\"").matcher(stats.stdout());
            assertThat(m.find()).as(stats.stdout()).isTrue();
            long beat = java.time.Instant.parse(m.group(1)).toEpochMilli();
            assertThat(beat).as("the consumer's last heartbeat, by the server clock")
                    .isBetween(before - 2000, System.currentTimeMillis() + 2000);
        }
        try (CliProcess stats = cli("stats", "beat")) {
            assertThat(stats.stdout()).contains(" last-heartbeat ");
        }
    }
}
