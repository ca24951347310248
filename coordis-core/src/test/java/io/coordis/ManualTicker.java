package io.coordis;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker that only moves when the test says so. */
public final class ManualTicker implements Ticker {
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    @Override
    public long read() {
        return nanos.get();
    }

    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }
}
