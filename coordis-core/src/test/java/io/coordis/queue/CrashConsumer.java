package io.coordis.queue;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.Outcome;
import io.coordis.TestClients;
import io.coordis.testkit.history.History;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * A consumer process for {@link ConsumerCrashIT}: takes batches, reports each message as processed
 * ({@code P id id ...}) and only then acks them, so a kill between the two makes a duplicate, never an
 * unreported ack. Reports go to a file of its own (written with one {@code write} per line, which survives
 * SIGKILL in the page cache), not to stdout: a pipe's last lines can be lost when the reading JVM reaps the
 * killed process. Prints {@code ID <consumer id>} on stdout when started; exits when stdin closes. Connecting
 * is retried while Redis is down or loading; any other exit is a crash.
 *
 * <p>With a history file it also records, for {@code QueueChecker}, each batch as {@code ok dequeue} per
 * message (value: the message's text) where it reports it, {@code invoke ack} per message before acking, then
 * {@code ok ack} or, for an outcome other than acked, {@code fail ack} ("already settled" after a failed
 * attempt counts as acked: that attempt's reply was lost); each step is one write.
 *
 * <p>Arguments: redis-host:port queue heartbeat-ttl-ms sweep-interval-ms report-file [history-file process-name]
 */
public final class CrashConsumer {
    private CrashConsumer() {
    }

    /** Connects, trying again while Redis is down or loading its dataset (as a supervisor would restart it). */
    private static Coordis connect(String address) throws InterruptedException {
        while (true) {
            try {
                return TestClients.builder().url("redis://" + address).commandTimeout(Duration.ofSeconds(1)).connect();
            } catch (CoordisException e) {
                Thread.sleep(100);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Thread watchdog = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // wait for EOF
                }
            } catch (java.io.IOException ignored) {
                // parent gone
            }
            Runtime.getRuntime().halt(0);
        }, "stdin-watch");
        watchdog.setDaemon(true);
        watchdog.start();
        QueueOptions options = QueueOptions.defaults().withSlots(8)
                .withHeartbeatTtl(Duration.ofMillis(Long.parseLong(args[2])))
                .withSweepInterval(Duration.ofMillis(Long.parseLong(args[3])));
        PrintStream stdout = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, "UTF-8");
        PrintStream out = new PrintStream(new java.io.FileOutputStream(args[4], true), false, "UTF-8");
        History history = args.length > 6 ? History.open(java.nio.file.Path.of(args[5]), args[6]) : null;
        try (Coordis coordis = connect(args[0])) {
            ReliableQueue queue = coordis.reliableQueue(args[1], options);
            Consumer consumer = null;
            while (consumer == null) {
                try {
                    consumer = queue.consumer();
                } catch (CoordisException e) {
                    Thread.sleep(100);
                }
            }
            stdout.println("ID " + consumer.id());
            while (true) {
                List<Delivery> batch;
                try {
                    batch = consumer.take(8, Duration.ofMillis(500));
                } catch (CoordisException e) {
                    out.println("E take " + e.getMessage());
                    out.flush();
                    Thread.sleep(50);
                    continue;
                }
                if (batch.isEmpty()) {
                    continue;
                }
                StringBuilder line = new StringBuilder("P");
                for (Delivery d : batch) {
                    line.append(' ').append(d.text());
                }
                List<String> texts = batch.stream().map(Delivery::text).toList();
                if (history != null) {
                    history.recordAll("ok", "dequeue", args[1], texts, -1);
                }
                out.println(line);
                out.flush();
                Thread.sleep(1); // the "work": messages stay in flight long enough for kills to find some
                if (history != null) {
                    history.recordAll("invoke", "ack", args[1], texts, -1);
                }
                boolean retried = false;
                while (true) {
                    try {
                        List<Outcome> outcomes = consumer.ack(batch);
                        List<String> acked = new java.util.ArrayList<>();
                        for (int i = 0; i < batch.size(); i++) {
                            // after a failed attempt, "already settled" is that attempt's lost reply: nobody else
                            // settles this consumer's deliveries, so it was acked then
                            boolean ackedBefore = retried && outcomes.get(i) == Outcome.ALREADY_SETTLED;
                            if (outcomes.get(i) != Outcome.ACKED && !ackedBefore) {
                                out.println("O " + outcomes.get(i) + " " + batch.get(i).id() + " " + batch.get(i).text());
                                if (history != null) {
                                    history.record("fail", "ack", args[1], texts.get(i), -1);
                                }
                            } else {
                                acked.add(texts.get(i));
                            }
                        }
                        if (history != null) {
                            history.recordAll("ok", "ack", args[1], acked, -1);
                        }
                        out.flush();
                        break;
                    } catch (CoordisException e) {
                        retried = true;
                        out.println("E ack " + e.getMessage());
                        out.flush();
                        Thread.sleep(50);
                    }
                }
            }
        }
    }
}
