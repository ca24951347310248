package io.coordis.soak;

import io.coordis.queue.CrashConsumer;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

/**
 * {@code soak.messages} (default 2,000,000) messages through the reliable queue while its three consumer JVMs
 * ({@link CrashConsumer}: report each batch as processed, then ack it) are SIGKILLed every 2-5 s (the first after
 * 3-5 s), preferably one holding messages, and replaced once its messages are back; and Redis itself ({@code appendfsync always})
 * is killed -9 and restarted once a quarter of the messages went through, then every 30-60 s ({@link QueueWorkload}).
 * The producer keeps at most 20,000 messages waiting.
 *
 * <p>Asserted: every message pushed and processed, 0 lost (pushed, never processed, in no list of the queue), 0
 * stuck in processing lists, nothing left waiting or dead-lettered, no message processed that was not pushed, no
 * consumer exiting on its own (one that does is replaced and reported with its output), and both kinds of fault happened (a consumer kill with messages in flight among them). Reported: lost and duplicates per million, the
 * recovery after each consumer kill (kill until its slots were empty) against the documented bound of heartbeat
 * TTL + 2 sweep intervals, throughput.
 */
class QueueSoak {
    @TempDir
    Path dir;

    @Test
    void noMessageLostOrStuckWhileConsumersAndRedisAreKilled() throws Exception {
        int messages = SoakSettings.messages();
        long seed = SoakSettings.seed("QueueSoak");
        try (RedisServer server = RedisServer.builder().appendOnly(true).appendFsync("always").start()) {
            new Harness("QueueSoak", "reliable queue, consumers and Redis killed", seed)
                    .add(new QueueWorkload(server, dir.resolve("queue"), messages, true, true))
                    .runUntilDone();
        }
    }
}
