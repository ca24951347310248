package io.coordis.signal;

import io.coordis.Coordis;
import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Lost pub/sub connections: resubscribed, and the gap reported to listeners and waiters. */
class SignalReconnectIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static RedisServer server() {
        return redis.server();
    }

    private static long subscribers(String channel) {
        return (Long) ((List<?>) server().command("PUBSUB", "NUMSUB", channel)).get(1);
    }

    @Test
    void killedPubSubConnectionIsResubscribedWithinASecondAndReportedAsAGapEachTime() throws Exception {
        BlockingQueue<Long> gapsAt = new LinkedBlockingQueue<>();
        BlockingQueue<Signal> heard = new LinkedBlockingQueue<>();
        try (Coordis c = Coordis.connect(redis.uri());
             Subscription s = c.signals().listen(List.of("beat"), new SignalListener() {
                 @Override
                 public void onSignal(Signal signal) {
                     heard.add(signal);
                 }

                 @Override
                 public void onGap(String node) {
                     gapsAt.add(System.nanoTime());
                 }
             });
             Waiter waiter = c.signals().waiter("never")) {
            for (int i = 0; i < 10; i++) {
                long killedAt = System.nanoTime();
                assertThat(server().command("CLIENT", "KILL", "TYPE", "pubsub")).isEqualTo(1L);
                Long gapAt = gapsAt.poll(5, TimeUnit.SECONDS);
                assertThat(gapAt).as("gap reported after kill %d", i).isNotNull();
                assertThat(Duration.ofNanos(gapAt - killedAt)).as("resubscribed after kill %d", i)
                        .isLessThan(Duration.ofSeconds(1));
                assertThat(subscribers("beat")).isEqualTo(1);
                assertThat(c.signals().signal("beat", "after-" + i)).isEqualTo(1);
                assertThat(heard.poll(5, TimeUnit.SECONDS)).isEqualTo(new Signal("beat", "after-" + i));
            }
            assertThat(s.gaps()).isEqualTo(10);
            assertThat(gapsAt).isEmpty();
            await().atMost(Duration.ofSeconds(2)).until(() -> waiter.gaps() == 10);
            assertThat(waiter.poll()).isEmpty();
        }
    }

    @Test
    void latchedWaiterStillWakesWhenTheSignalCameDuringTheOutage() throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server());
             Coordis c = Coordis.builder().url(proxy.uri()).commandTimeout(Duration.ofSeconds(1)).connect()) {
            Event event = c.signals().event("outage", Duration.ofSeconds(30));
            try (Waiter w = event.waiter()) {
                proxy.set(FaultProxy.Fault.RESET);
                await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("outage") == 0);
                // signalled while this client is cut off: the PUBLISH reaches nobody, the key stays
                server().command("SET", event.key(), "during", "PX", "30000");
                assertThat(server().command("PUBLISH", "outage", "during")).isEqualTo(0L);
                proxy.pass();
                assertThat(w.await(Duration.ofSeconds(10))).map(Signal::data).contains("during");
                assertThat(w.gaps()).isGreaterThanOrEqualTo(1);
            }
        }
    }

    @Test
    void plainWaiterSubscribedAgainAfterTheOutageWakesOnTheNextSignal() throws Exception {
        try (FaultProxy proxy = FaultProxy.to(server());
             Coordis c = Coordis.builder().url(proxy.uri()).commandTimeout(Duration.ofSeconds(1)).connect();
             Waiter w = c.signals().waiter("later")) {
            proxy.set(FaultProxy.Fault.RESET);
            await().atMost(Duration.ofSeconds(5)).until(() -> subscribers("later") == 0);
            assertThat(server().command("PUBLISH", "later", "lost")).isEqualTo(0L);
            proxy.pass();
            await().atMost(Duration.ofSeconds(10)).until(() -> w.gaps() >= 1);
            assertThat(server().command("PUBLISH", "later", "next")).isEqualTo(1L);
            assertThat(w.await(Duration.ofSeconds(5))).map(Signal::data).contains("next");
        }
    }
}
