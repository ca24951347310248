package io.coordis;

import io.coordis.testkit.BusyThreads;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A refused handshake is reported by what the server said, whatever the channel did meanwhile: Lettuce closes the
 * channel when Redis refuses the credentials, and on a loaded machine that close can overtake the refusal and be
 * all Lettuce reports ("Connection closed prematurely", or "RedisHandshakeHandler not registered" when the channel
 * closed before Lettuce looked for its handshake handler). Hundreds of wrong-password connects beside busy threads,
 * each one an {@link AccessDeniedException} naming the credentials, never with TLS advice. Before connections were
 * tried again after a lost answer, 6 of 3,000 such connects (4 connecting threads, 6 busy ones) were misreported as
 * Redis unavailable; with blind retries alone, 2 of 500 still were on a loaded CI machine, hence the server's answer
 * is now asked apart on a connection whose handshake cannot fail.
 */
class HandshakeRefusalIT {
    private static final String PASSWORD = "pa55-Top-Secret";
    private static final int CONNECTS = Integer.getInteger("coordis.handshakeConnects", 500);
    private static final int CONNECTORS = Integer.getInteger("coordis.handshakeConnectors", 4);
    private static final int SPINNERS = Integer.getInteger("coordis.handshakeSpinners", 4);

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.of(RedisServer.builder().requirePass(PASSWORD));

    @Test
    void everyRefusedHandshakeUnderLoadIsAccessDenied() throws Exception {
        String url = "redis://:Wrong-Guess-99@" + redis.server().address();
        BusyThreads busy = BusyThreads.start(SPINNERS);
        Map<String, Integer> misreports = new ConcurrentSkipListMap<>();
        AtomicInteger denied = new AtomicInteger();
        AtomicInteger next = new AtomicInteger();
        List<Thread> connectors = new ArrayList<>();
        try {
            for (int c = 0; c < CONNECTORS; c++) {
                Thread connector = new Thread(() -> {
                    while (next.getAndIncrement() < CONNECTS) {
                        Throwable t = catchThrowable(() -> TestClients.connect(url).close());
                        if (t instanceof AccessDeniedException a && a.reason() == AccessDeniedException.Reason.CREDENTIALS
                                && !String.valueOf(t.getMessage()).contains("rediss://")) {
                            denied.incrementAndGet();
                        } else {
                            misreports.merge(String.valueOf(t), 1, Integer::sum);
                        }
                    }
                }, "connector-" + c);
                connector.start();
                connectors.add(connector);
            }
            for (Thread connector : connectors) {
                connector.join();
            }
        } finally {
            busy.close();
        }
        System.out.println("wrong-password connects under load: " + denied + " of " + CONNECTS
                + " access denied; misreports " + misreports);
        assertThat(misreports).as("connects not reported as refused credentials").isEmpty();
    }
}
