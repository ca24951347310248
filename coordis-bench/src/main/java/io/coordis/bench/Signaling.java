package io.coordis.bench;

import java.util.function.Consumer;

/** The pub/sub calls the signal scenario makes: one subscription, then publishes. */
interface Signaling extends AutoCloseable {

    /** Subscribes {@code receiver} to {@code channel}; returns once the server confirmed it. */
    void subscribe(String channel, Consumer<String> receiver) throws InterruptedException;

    /** Publishes {@code data} on {@code channel}; returns when the server answered. */
    void publish(String channel, String data);

    @Override
    void close();
}
