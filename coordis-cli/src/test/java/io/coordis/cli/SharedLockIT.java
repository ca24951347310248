package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.cli.support.ExitCodes;
import io.coordis.lock.Lease;
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
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code coordis lock --shared}: read holds of a read-write lock, in their own JVMs against a real redis-server. */
class SharedLockIT {
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

    @Test
    void sharedHoldsRunTogetherAndAnExclusiveOneWaitsForThem() throws IOException {
        Path go = CliProcess.signalFile();
        String untilGo = "echo \"running $COORDIS_LOCK_NAME $COORDIS_LOCK_TOKEN\"; while [ ! -e \"$0\" ]; do sleep 0.05; done";
        try (CliProcess first = CliProcess.start("lock", "--shared", "-u", redis.uri(), "it:rw", "--", "sh", "-c",
                untilGo, go.toString());
             CliProcess second = CliProcess.start("lock", "--shared", "-u", redis.uri(), "-w", "20s", "it:rw", "--",
                     "sh", "-c", untilGo, go.toString())) {
            first.awaitStdout("running");
            second.awaitStdout("running");
            assertThat(client.readWriteLock("it:rw").readers()).hasSize(2);
            long firstToken = token(first.stdout());
            long secondToken = token(second.stdout());
            assertThat(first.stderr()).isEqualTo("coordis: acquired a shared hold of 'it:rw' (token " + firstToken + ")\n");

            try (CliProcess writer = CliProcess.start("lock", "-u", redis.uri(), "-w", "20s", "it:rw", "--",
                    "sh", "-c", "echo \"writing $COORDIS_LOCK_TOKEN\"")) {
                writer.awaitStderr("waiting up to 20s for lock 'it:rw' held by readers");
                CliProcess.sleep(300);
                assertThat(writer.stdout()).as("the writer does not run beside readers").isEmpty();
                try (CliProcess late = CliProcess.start("lock", "--shared", "-n", "-u", redis.uri(), "it:rw", "--",
                        "true")) {
                    assertThat(late.exitCode()).as("a reader coming after a waiting writer waits behind it")
                            .isEqualTo(1);
                }
                Files.createFile(go);
                assertThat(first.exitCode()).isZero();
                assertThat(second.exitCode()).isZero();
                assertThat(writer.exitCode()).isZero();
                assertThat(token(writer.stdout())).isGreaterThan(Math.max(firstToken, secondToken));
            }
        }
        assertThat(redis.server().command("EXISTS", Prefixed.key("it:rw"))).isEqualTo(0L);
    }

    @Test
    void aSharedHoldWaitsForAWriterAndGivesUpWithTheConflictCode() {
        Lease writer = client.lock("it:rw-busy").tryAcquire().orElseThrow();
        try (CliProcess cli = CliProcess.start("lock", "--shared", "-n", "-E", "9", "-u", redis.uri(), "it:rw-busy",
                "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(9);
            assertThat(cli.stderr()).contains("lock 'it:rw-busy' is held by").contains("not waiting");
        }
        writer.release();
    }

    @Test
    void aLostSharedHoldStopsTheCommandWithSigtermAndExits75() {
        try (CliProcess cli = CliProcess.start("lock", "--shared", "-u", redis.uri(), "--ttl", "1s", "it:rw-lost",
                "--", "sh", "-c", "trap 'echo got-term; exit 0' TERM; echo ready; while true; do sleep 0.1; done")) {
            cli.awaitStdout("ready");
            assertThat(client.readWriteLock("it:rw-lost").readers()).hasSize(1);
            client.lock("it:rw-lost").forceUnlock("test");
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.LOCK_LOST);
            assertThat(cli.stdout()).isEqualTo("ready\ngot-term\n");
        }
    }

    @Test
    void inspectShowsTheReadHoldsAndAWaitingWriter() throws InterruptedException {
        var rw = client.readWriteLock("it:rw-inspect");
        Lease first = rw.readLock().tryAcquire().orElseThrow();
        Lease second = rw.readLock().tryAcquire().orElseThrow();
        assertThat(client.lock("it:rw-inspect").acquire(Duration.ofMillis(100))).isEmpty(); // marks a waiting writer
        InProcess cli = new InProcess();
        assertThat(cli.run("inspect", "lock", "it:rw-inspect", "-o", "json", "-u", redis.uri())).as(cli.err()).isZero();
        Map<String, Object> lock = TestJson.object(cli.out());
        List<Object> readers = TestJson.list(lock.get("readers"));
        assertThat(readers).hasSize(2);
        assertThat(readers.stream().map(r -> TestJson.map(r).get("fence")).toList())
                .containsExactlyInAnyOrder(first.fencingToken(), second.fencingToken());
        assertThat(lock.get("writerWaitingMs")).isNotNull();
        assertThat(cli.run("inspect", "lock", "it:rw-inspect", "-u", redis.uri())).as(cli.err()).isZero();
        assertThat(cli.out()).contains("readers", "writer waiting", "fence " + first.fencingToken());
        assertThat(cli.run("ls", "locks", "-u", redis.uri())).as(cli.err()).isZero();
        assertThat(cli.out()).contains("2 readers");
        first.release();
        second.release();
    }

    @Test
    void sharedIsRefusedOverRedlockMasters() {
        try (CliProcess cli = CliProcess.start("lock", "--shared", "-u", "redis://127.0.0.1:1", "-u",
                "redis://127.0.0.1:2", "-u", "redis://127.0.0.1:3", "it:rw", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(64);
            assertThat(cli.stderr()).contains("--shared takes a read hold on one Redis node");
        }
    }

    private static long token(String stdout) {
        String line = stdout.lines().filter(l -> l.startsWith("running") || l.startsWith("writing")).findFirst()
                .orElseThrow(() -> new AssertionError("no token in: " + stdout));
        return Long.parseLong(line.substring(line.lastIndexOf(' ') + 1));
    }
}
