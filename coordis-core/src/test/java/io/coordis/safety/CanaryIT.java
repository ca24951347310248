package io.coordis.safety;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Waiter;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A canary password never leaves the client: every primitive is used with credentials in the URL (the
 * default user's password and an ACL user's), the server is killed under held leases, leadership, a
 * consumer and a waiter (renewals, heartbeats and reconnections fail and are logged) and restarted, wrong
 * credentials are tried; then every log line written meanwhile (standard output and error, where the
 * logging backend writes), every exception message and stack trace, and the {@code toString()} of every
 * object handed out are searched for the passwords.
 */
class CanaryIT {
    private static final String CANARY = "Canary-Pw-7f3a91";
    private static final String ACL_CANARY = "Acl-Canary-52e0c4";
    private static final String WRONG_CANARY = "Wrong-Canary-d81b7e";

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void passwordsNeverAppearInLogsExceptionsOrToString() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream originalOut = System.out;
        PrintStream originalErr = System.err;
        List<String> texts = new ArrayList<>();
        try (RedisServer server = RedisServer.builder().requirePass(CANARY)
                .aclUser("tenant", ACL_CANARY, "~*", "&*", "+@all").start()) {
            System.setOut(new PrintStream(tee(originalOut, captured), true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(tee(originalErr, captured), true, StandardCharsets.UTF_8));
            try {
                exercise(server, "redis://:" + CANARY + "@" + server.address(), texts);
                exercise(server, "redis://tenant:" + ACL_CANARY + "@" + server.address(), texts);
                for (String bad : List.of("redis://:" + WRONG_CANARY + "@" + server.address(),
                        "redis://tenant:" + WRONG_CANARY + "@" + server.address(),
                        "redis://nobody:" + WRONG_CANARY + "@" + server.address())) {
                    texts.add(everything(catchAny(() -> TestClients.connect(bad))));
                }
                texts.add(outcome(() -> {
                    try (Coordis redlock = TestClients.connect(List.of("redis://:" + CANARY + "@" + server.address(),
                            "redis://:" + WRONG_CANARY + "@127.0.0.1:1", "redis://:" + WRONG_CANARY + "@127.0.0.1:2"))) {
                        return redlock + " " + outcome(() -> redlock.lock("canary:redlock").tryAcquire());
                    }
                }));
            } finally {
                System.out.flush();
                System.err.flush();
                System.setOut(originalOut);
                System.setErr(originalErr);
            }
        }
        String logs = captured.toString(StandardCharsets.UTF_8);
        assertThat(logs).as("log output while the server was killed under every primitive")
                .contains("could not be renewed").contains("is unavailable") // failures were logged at all
                .doesNotContain(CANARY).doesNotContain(ACL_CANARY).doesNotContain(WRONG_CANARY);
        assertThat(texts).as("exceptions and toString() of everything handed out").isNotEmpty()
                .allSatisfy(t -> assertThat(t).doesNotContain(CANARY).doesNotContain(ACL_CANARY)
                        .doesNotContain(WRONG_CANARY));
    }

    private static void exercise(RedisServer server, String url, List<String> texts) throws Exception {
        try (Coordis coordis = TestClients.builder().url(url).commandTimeout(Duration.ofMillis(500)).connect()) {
            texts.add(coordis.toString());
            texts.add(coordis.address());
            DistributedLock lock = coordis.lock("canary:lock", LockOptions.defaults().withTtl(Duration.ofSeconds(1)));
            texts.add(lock.toString());
            Lease lease = lock.tryAcquire().orElseThrow();
            texts.add(lease.toString());
            texts.add(String.valueOf(lock.holder()));
            LeaderElection election = coordis.election("canary:election",
                    io.coordis.election.ElectionOptions.defaults().withTtl(Duration.ofSeconds(1)));
            texts.add(election.toString());
            Leadership leadership = election.campaign(Duration.ofSeconds(2)).orElseThrow();
            texts.add(leadership.toString());
            texts.add(String.valueOf(election.leader()));
            ReliableQueue queue = coordis.reliableQueue("canary:queue");
            texts.add(queue.toString());
            queue.push("m");
            Consumer consumer = queue.consumer();
            texts.add(consumer.toString());
            texts.add(String.valueOf(consumer.take(Duration.ofSeconds(1))));
            Waiter waiter = coordis.signals().waiter("canary:signal");
            texts.add(waiter.toString());
            texts.add(coordis.signals().toString());

            server.kill(); // renewals, heartbeats and re-subscriptions now fail, and say so
            await().atMost(Duration.ofSeconds(10)).until(() -> !lease.isHeld() && !election.isLeader());
            for (Supplier<Object> op : List.<Supplier<Object>>of(() -> lock.tryAcquire(), () -> coordis.signals().signal("c", "d"),
                    () -> call(() -> queue.push("n")), () -> call(() -> queue.stats()), () -> election.leader(),
                    () -> call(() -> election.campaign(Duration.ofMillis(300))))) {
                texts.add(outcome(op));
            }
            Thread.sleep(1500); // a few failed heartbeats and reconnection attempts
            server.restart(Duration.ZERO);
            texts.add(String.valueOf(lock.tryAcquire().map(Object::toString)));
            consumer.close();
            waiter.close();
            lease.close();
        }
    }

    private interface Call {
        Object call() throws Exception;
    }

    private static Object call(Call c) {
        try {
            return c.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    /** The failure (with its stack trace) or the result of {@code op}, as text. */
    private static String outcome(Supplier<Object> op) {
        try {
            return String.valueOf(op.get());
        } catch (Throwable t) {
            return everything(t);
        }
    }

    private static Throwable catchAny(Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            return t;
        }
        throw new AssertionError("expected a failure");
    }

    private static String everything(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        return w + " " + t;
    }

    private static OutputStream tee(OutputStream a, OutputStream b) {
        return new OutputStream() {
            @Override
            public void write(int x) throws java.io.IOException {
                a.write(x);
                synchronized (b) {
                    b.write(x);
                }
            }

            @Override
            public void write(byte[] buf, int off, int len) throws java.io.IOException {
                a.write(buf, off, len);
                synchronized (b) {
                    b.write(buf, off, len);
                }
            }

            @Override
            public void flush() throws java.io.IOException {
                a.flush();
            }
        };
    }
}
