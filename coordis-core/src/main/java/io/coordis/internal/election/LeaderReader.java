package io.coordis.internal.election;

import io.coordis.CoordisException;
import io.coordis.election.Leader;
import io.coordis.internal.Failures;
import io.coordis.internal.StoredValues;
import io.coordis.internal.lease.Held;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * Reads who leads an election ({@code claim.lua}: the leader key, its PTTL, and the term from the details
 * key), for {@link io.coordis.election.LeaderElection#leader()}
 * and for observers, and checks each leader's term against those
 * the candidate has seen. Thread-safe.
 */
final class LeaderReader {
    static final LuaScript LEADER = Held.READ;

    /** A leader as {@code claim.lua} reports it, with its raw PTTL. */
    record Reading(Leader leader, long pttlMillis) {
    }

    private final Node node;
    private final String name;
    private final List<String> keys;
    private final CandidateEvents events;

    LeaderReader(Node node, String name, String key, String detailsKey, CandidateEvents events) {
        this.node = node;
        this.name = name;
        this.keys = List.of(key, detailsKey);
        this.events = events;
    }

    /** Who leads now, one round trip; checked for term regression. */
    Optional<Leader> leader() {
        try {
            Optional<Leader> leader = parse(node.await(node.eval(LEADER, keys, ElectionLayout.DETAILS_READ),
                    node.commandTimeout())).map(Reading::leader);
            leader.ifPresent(this::observed);
            return leader;
        } catch (CoordisException e) {
            throw Failures.about(Failures.object("election", name), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordisException(node.address(), "interrupted while reading the leader of '" + keys.get(0) + "'", e);
        }
    }

    /** Reads the leader without blocking, for observers. */
    CompletableFuture<Optional<Reading>> read() {
        return node.within(node.eval(LEADER, keys, ElectionLayout.DETAILS_READ), node.commandTimeout())
                .thenApply(this::parse);
    }

    /** Records an observed leader; {@code true} when its term regressed (reported loudly the first time). */
    boolean observed(Leader leader) {
        return leader.term().isPresent() && events.observed(leader.id(), leader.term().getAsLong());
    }

    private Optional<Reading> parse(Object reply) {
        List<?> r = Replies.list(reply, 1, LEADER, node.address());
        if (r.get(0) == null) {
            return Optional.empty();
        }
        Replies.list(r, 3, LEADER, node.address());
        String leaderId = Replies.string(r, 0, LEADER, node.address());
        long pttl = Replies.number(r, 1, LEADER, node.address());
        OptionalLong term = ElectionLayout.leadershipDetails(StoredValues.pairs(r.get(2))).term();
        return Optional.of(new Reading(new Leader(leaderId, term,
                pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty()), pttl));
    }
}
