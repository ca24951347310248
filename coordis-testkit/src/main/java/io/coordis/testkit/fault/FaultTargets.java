package io.coordis.testkit.fault;

import io.coordis.testkit.FaultProxy;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.Nemesis.Fault;
import io.coordis.testkit.fault.Nemesis.Kind;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What a {@link Nemesis.Builder} was given to hit, turned into targets by kind: for each server, proxy, namespace and
 * the client processes the built-in {@link Faults} of their kinds, then the test's own targets in the order added.
 * The order is part of the schedule: a seed draws its targets by position.
 *
 * <p>Not thread-safe: filled and read by the builder's thread.
 */
final class FaultTargets {
    final List<RedisServer> servers = new ArrayList<>();
    final List<FaultProxy> proxies = new ArrayList<>();
    final List<NetworkNamespace> namespaces = new ArrayList<>();
    Supplier<List<Long>> clientPids;
    Duration minLatency = Duration.ofMillis(50);
    Duration maxLatency = Duration.ofMillis(250);
    private final Map<Kind, List<FaultTarget>> custom = new EnumMap<>(Kind.class);

    /** Adds a target of the test's own, drawn after the built-in ones of its kind. */
    void add(Kind kind, String name, Fault fault) {
        add(custom, kind, name, fault);
    }

    /**
     * The targets of every kind, frozen; the built-in faults draw from streams derived from {@code seed}.
     *
     * @throws IllegalArgumentException when one of {@code kinds} has no target
     */
    Map<Kind, List<FaultTarget>> forKinds(long seed, Set<Kind> kinds) {
        Map<Kind, List<FaultTarget>> targets = builtIn(seed);
        custom.forEach((kind, list) -> targets.computeIfAbsent(kind, k -> new ArrayList<>()).addAll(list));
        for (Kind kind : kinds) {
            if (targets.getOrDefault(kind, List.of()).isEmpty()) {
                throw new IllegalArgumentException(kind + " needs a target; none was given to the nemesis");
            }
        }
        Map<Kind, List<FaultTarget>> frozen = new EnumMap<>(Kind.class);
        targets.forEach((kind, list) -> frozen.put(kind, List.copyOf(list)));
        return frozen;
    }

    private Map<Kind, List<FaultTarget>> builtIn(long seed) {
        Map<Kind, List<FaultTarget>> t = new EnumMap<>(Kind.class);
        for (RedisServer s : servers) {
            add(t, Kind.KILL_RESTART, s.address(), Faults.killRestart(s));
            add(t, Kind.PAUSE, s.address(), Faults.pause(s));
            add(t, Kind.CLIENT_PAUSE, s.address(), Faults.clientPause(s));
        }
        // latencies come from a stream of their own, so they do not shift the schedule's draws
        Random latencies = new Random(~seed);
        Duration min = minLatency;
        Duration max = maxLatency;
        for (FaultProxy p : proxies) {
            add(t, Kind.LATENCY, p.address(), Faults.latency(p, () -> Schedule.between(latencies, min, max)));
            add(t, Kind.BLACKHOLE, p.address(), Faults.blackhole(p));
            add(t, Kind.LOST_REPLY, p.address(), Faults.lostReply(p));
        }
        for (NetworkNamespace ns : namespaces) {
            add(t, Kind.PARTITION, ns.toString(), Faults.partition(ns));
        }
        if (clientPids != null) {
            add(t, Kind.STOP_CLIENT, "client processes", Faults.stopClient(clientPids, new Random(seed * 31 + 7)));
        }
        return t;
    }

    private static void add(Map<Kind, List<FaultTarget>> t, Kind kind, String name, Fault fault) {
        t.computeIfAbsent(kind, k -> new ArrayList<>()).add(new FaultTarget(name, fault));
    }
}
