package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.signal.Signal;
import io.coordis.signal.Signals;
import io.coordis.signal.Subscription;
import io.coordis.signal.Waiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Signals both ways with redis-py's pub/sub on the channel names given (plain {@code PUBLISH}/{@code SUBSCRIBE}):
 * Python publishes and a Coordis waiter wakes and a listener hears every message in order; Coordis signals and a
 * Python subscriber hears every one in order; {@code signalOne} reaches a Python subscriber on the unicast channel
 * {@code <channel><id>}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ForeignSignalsIT {
    private static final int COUNT = 100;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private Coordis coordis;
    private Map<String, String> login;

    @BeforeEach
    void connect() {
        coordis = TestClients.connect(redis.uri());
        login = ForeignClient.login(redis.servers());
        ForeignClient.requirePython();
    }

    @AfterEach
    void close() {
        coordis.close();
    }

    @Test
    void pythonPublishesAndCoordisWaitersWake() throws Exception {
        String channel = "interop:py-to-coordis";
        Signals signals = coordis.signals();
        List<String> heard = new CopyOnWriteArrayList<>();
        try (Waiter waiter = signals.waiter(channel);
             Subscription listening = signals.listen(List.of(channel), s -> heard.add(s.data()));
             ForeignClient python = ForeignClient.python(login, "publish", "--redis", redis.server().address(),
                     "--channel", Prefixed.key(channel), "--count", Integer.toString(COUNT))) {
            Optional<Signal> woke = waiter.await(Duration.ofSeconds(10));
            assertThat(woke).as("the waiter woke").hasValueSatisfying(s -> {
                assertThat(s.channel()).isEqualTo(channel);
                assertThat(s.data()).isEqualTo("py-0");
            });
            Map<String, Object> done = python.done();
            assertThat((Long) done.get("receivers")).as("every PUBLISH reached a Coordis subscriber")
                    .isGreaterThanOrEqualTo(COUNT);
            await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() >= COUNT);
        }
        System.out.printf("interop signals python->coordis: %d heard of %d%n", heard.size(), COUNT);
        assertThat(heard).containsExactlyElementsOf(IntStream.range(0, COUNT).mapToObj(i -> "py-" + i).toList());
    }

    @Test
    void coordisSignalsAndPythonSubscribersHear() throws Exception {
        String channel = "interop:coordis-to-py";
        Signals signals = coordis.signals();
        List<String> sent = new ArrayList<>();
        try (ForeignClient python = subscriber(Prefixed.key(channel), COUNT)) {
            python.awaitEvent("subscribed");
            long receivers = 0;
            for (int i = 0; i < COUNT; i++) {
                sent.add("coordis-" + i);
                receivers += signals.signal(channel, "coordis-" + i);
            }
            assertThat(receivers).as("each signal counted its one Python receiver").isEqualTo(COUNT);
            List<Object> heard = TestJson.list(python.done().get("received"));
            System.out.printf("interop signals coordis->python: %d heard of %d%n", heard.size(), COUNT);
            assertThat(heard).containsExactlyElementsOf(sent);
        }

        // unicast: each waiter listens on <channel><id>; a Python subscriber there is one of them
        String unicast = "interop:one:";
        try (ForeignClient python = subscriber(Prefixed.key(unicast) + "py-1", 1)) {
            python.awaitEvent("subscribed");
            assertThat(signals.signalOne(unicast, "only")).as("reached the one Python waiter").isEqualTo(1);
            assertThat(TestJson.list(python.done().get("received"))).containsExactly("only");
        }
    }

    private ForeignClient subscriber(String channel, int expect) {
        return ForeignClient.python(login, "subscribe", "--redis", redis.server().address(), "--channel", channel,
                "--expect", Integer.toString(expect), "--timeout-ms", "15000");
    }
}
