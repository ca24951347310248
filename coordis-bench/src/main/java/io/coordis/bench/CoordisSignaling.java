package io.coordis.bench;

import io.coordis.Coordis;
import io.coordis.signal.Subscription;

import java.util.List;
import java.util.function.Consumer;

/** Coordis signals: {@code Signals.listen} to receive, {@code Signals.signal} to send, one client. */
final class CoordisSignaling implements Signaling {
    private final Coordis coordis;
    private Subscription subscription;

    CoordisSignaling(String uri) {
        this.coordis = Coordis.connect(uri);
    }

    @Override
    public void subscribe(String channel, Consumer<String> receiver) throws InterruptedException {
        subscription = coordis.signals().listen(List.of(channel), s -> receiver.accept(s.data()));
    }

    @Override
    public void publish(String channel, String data) {
        coordis.signals().signal(channel, data);
    }

    @Override
    public void close() {
        if (subscription != null) {
            subscription.close();
        }
        coordis.close();
    }
}
