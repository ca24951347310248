package io.coordis.internal.signal;

import io.coordis.internal.Timer;
import io.coordis.signal.Gathering;
import io.coordis.signal.Signal;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link Gathering}: keeps each channel's first signal and completes when every channel has one. */
final class AllOf extends Pending<Map<String, Signal>> implements Gathering {
    private final List<String> channels;
    private final Map<String, Signal> firsts = new ConcurrentHashMap<>();

    AllOf(List<String> channels, Timer timer) {
        super("gathering on " + channels, "every channel delivered", timer);
        this.channels = List.copyOf(channels);
    }

    @Override
    public void message(int node, String channel, String data) {
        if (firsts.putIfAbsent(channel, new Signal(channel, data)) == null && firsts.size() == channels.size()) {
            result.complete(ordered());
        }
    }

    private Map<String, Signal> ordered() {
        Map<String, Signal> m = new LinkedHashMap<>();
        for (String c : channels) {
            Signal s = firsts.get(c);
            if (s != null) {
                m.put(c, s);
            }
        }
        return Collections.unmodifiableMap(m);
    }

    @Override
    public Map<String, Signal> received() {
        return ordered();
    }
}
