package io.coordis.internal;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class ClientTimerTest {

    @Test
    void closeTasksRunOnceWhenTheTimerClosesAndAtOnceAfterwards() {
        ClientTimer timer = new ClientTimer(System::nanoTime);
        AtomicInteger ran = new AtomicInteger();
        Runnable task = ran::incrementAndGet;
        timer.onClose(task);
        timer.onClose(task);
        Timer.Handle forgotten = timer.onClose(() -> ran.addAndGet(100));
        forgotten.cancel();
        assertThat(ran).hasValue(0);

        timer.close();
        timer.close();
        assertThat(ran).as("each registration once, the cancelled one never").hasValue(2);

        timer.onClose(task);
        assertThat(ran).as("registered after the close: runs at once").hasValue(3);
    }
}
