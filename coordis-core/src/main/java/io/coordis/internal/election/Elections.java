package io.coordis.internal.election;

import io.coordis.Replication;
import io.coordis.Telemetry;
import io.coordis.election.CounterElection;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.internal.Durations;
import io.coordis.internal.Keys;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.Node;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Creates election candidates over one client's Redis connection. Built by {@code Coordis}.
 * Thread-safe.
 */
public final class Elections {
    /** The term the classic counter election uses: {@code EXPIRE master_selector 20}. */
    public static final Duration CLASSIC_TERM = Duration.ofSeconds(20);

    private final List<Node> nodes;
    private final Namespace namespace;
    private final Timer timer;
    private final Telemetry telemetry;

    /** Elections on a client's nodes (campaigns on the first), keys in its namespace, timer and telemetry. */
    public Elections(List<? extends Node> nodes, Namespace namespace, Timer timer, Telemetry telemetry) {
        this.nodes = List.copyOf(nodes);
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        this.timer = timer;
        this.telemetry = telemetry;
    }

    /**
     * A candidate in the lease election {@code name}.
     *
     * @param name    the election's name
     * @param options the candidate's options
     * @return a new candidate; it does not campaign until asked
     * @throws IllegalArgumentException when the name is blank or longer than 1,024 bytes in UTF-8
     * @throws IllegalStateException    when this client talks to several independent masters
     */
    public LeaderElection election(String name, ElectionOptions options) {
        Objects.requireNonNull(options, "election options must not be null");
        Replication r = options.replication().orElse(Replication.none());
        if (!r.isNone() && r.timeout().multipliedBy(3).compareTo(options.ttl()) >= 0) {
            throw new IllegalArgumentException("the replica timeout " + Durations.format(r.timeout())
                    + " must be below a third of the election ttl " + Durations.format(options.ttl())
                    + " (the renewal interval); write a shorter wait (e.g. 50ms) or a longer ttl");
        }
        String checked = checkName(name, "election name");
        return new LeaseElection(node(), checked, namespace.then(options.keyPrefix()).key(checked), options, timer,
                telemetry);
    }

    /**
     * A candidate in the classic counter election on {@code key} in this client's namespace.
     *
     * @param key    the counter's key, without the client's key prefix
     * @param term   the expiry the leader refreshes, whole seconds
     * @return a new candidate; it does not campaign until asked
     * @throws IllegalArgumentException when the key is blank, or the term is not a whole number of
     *                                  seconds of at least 1 s and at most {@link ElectionOptions#MAX_TTL}
     * @throws IllegalStateException    when this client talks to several independent masters
     */
    public CounterElection counterElection(String key, Duration term) {
        Objects.requireNonNull(term, "term must not be null");
        if (term.compareTo(Duration.ofSeconds(1)) < 0 || term.getNano() != 0) {
            throw new IllegalArgumentException("counter election term must be a whole number of seconds, at least 1s "
                    + "(it is sent as EXPIRE <key> <seconds>), was " + Durations.format(term));
        }
        if (term.compareTo(ElectionOptions.MAX_TTL) > 0) {
            throw new IllegalArgumentException("counter election term must be at most "
                    + Durations.format(ElectionOptions.MAX_TTL) + ", was " + Durations.format(term));
        }
        return new IncrementingElection(node(), namespace.key(checkName(key, "election key")), term, 0.01,
                timer.ticker());
    }

    private Node node() {
        if (nodes.size() != 1) {
            throw new IllegalStateException("leader election runs on one Redis node (or a Sentinel-managed master); "
                    + "this client has " + nodes.size() + " independent masters: connect a client to one of them");
        }
        return nodes.get(0);
    }

    private static String checkName(String name, String what) {
        return Keys.requireName(what, name, "name the election, e.g. \"reports:scheduler\"");
    }
}
