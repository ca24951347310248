package io.coordis.election;

import io.coordis.Replication;
import io.coordis.internal.Durations;
import io.coordis.internal.Fencing;
import io.coordis.internal.Hosts;
import io.coordis.internal.lease.LeaseSession;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a {@link LeaderElection} candidate behaves. Immutable; each {@code with...} method returns a
 * changed copy.
 *
 * <ul>
 *   <li>{@code ttl} — how long a leadership lives in Redis without renewal, and so how long an election
 *       can stay without a leader after a leader died; default 15 s, at least {@link #MIN_TTL}, at most
 *       {@link #MAX_TTL}. The leader renews every ttl/3.</li>
 *   <li>{@code candidateId} — the value written to the election's key while this candidate leads, shown
 *       to operators and observers; default {@code user@host:pid:<6 hex digits>}, unique per options
 *       object made from the defaults.</li>
 *   <li>{@code keyPrefix} — an explicit prefix put before the name to make the key; default none.</li>
 *   <li>{@code clockDriftFactor} — the share of the TTL assumed lost to clock drift between this process
 *       and Redis: a leader counts its term as over at start of its last successful renewal + TTL −
 *       (TTL × factor + 2 ms); default 0.01.</li>
 *   <li>{@code replication} — replicas that must have a new term before it counts; default the client's (none).</li>
 * </ul>
 */
public final class ElectionOptions {
    /**
     * The smallest TTL accepted: renewal runs at a third of it, and below 100 ms between renewals one
     * slow round trip would end a healthy leadership.
     */
    public static final Duration MIN_TTL = Duration.ofMillis(300);
    /**
     * The largest TTL accepted, 30 days: terms are timed in nanoseconds of a monotonic clock, which overflow
     * 292 years after its origin, and Redis refuses an expiry that overflows its own arithmetic; a bound far
     * below both keeps every deadline exact. A longer TTL would also leave an election without a leader for
     * that long after its leader died.
     */
    public static final Duration MAX_TTL = Duration.ofDays(30);
    /** The default TTL. */
    public static final Duration DEFAULT_TTL = Duration.ofSeconds(15);

    private final Duration ttl;
    private final String candidateId;
    private final String keyPrefix;
    private final double clockDriftFactor;
    /** {@code null}: the client's default. */
    private final Replication replication;
    private final Duration counterRetention;

    private ElectionOptions(Duration ttl, String candidateId, String keyPrefix, double clockDriftFactor,
                            Replication replication, Duration counterRetention) {
        this.ttl = ttl;
        this.candidateId = candidateId;
        this.keyPrefix = keyPrefix;
        this.clockDriftFactor = clockDriftFactor;
        this.replication = replication;
        this.counterRetention = counterRetention;
    }

    /**
     * Default options with a fresh default candidate id.
     *
     * @return the default options
     */
    public static ElectionOptions defaults() {
        return new ElectionOptions(DEFAULT_TTL, defaultCandidateId(), "", 0.01, null, Fencing.DEFAULT_RETENTION);
    }

    /**
     * {@code user@host:pid:<6 random hex digits>}: tells apart two candidates in one process.
     *
     * @return a new id
     */
    public static String defaultCandidateId() {
        return Hosts.processId() + ":" + String.format("%06x", ThreadLocalRandom.current().nextInt(1 << 24));
    }

    /**
     * @param ttl how long a leadership lives in Redis without renewal
     * @return a copy with this TTL
     * @throws IllegalArgumentException when {@code ttl} is below {@link #MIN_TTL} or above {@link #MAX_TTL}
     */
    public ElectionOptions withTtl(Duration ttl) {
        return new ElectionOptions(Durations.between(ttl, MIN_TTL, MAX_TTL, "election ttl"), candidateId, keyPrefix,
                clockDriftFactor, replication, counterRetention);
    }

    /**
     * @param id the value written to the election's key while this candidate leads
     * @return a copy with this id
     * @throws IllegalArgumentException when the id is blank or contains a space or line break (the id
     *                                  travels in space-separated notifications)
     */
    public ElectionOptions withCandidateId(String id) {
        Objects.requireNonNull(id, "candidate id must not be null");
        if (id.isBlank()) {
            throw new IllegalArgumentException("candidate id must not be blank: name this candidate, e.g. \"web-1\"");
        }
        if (id.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("candidate id must not contain blanks or line breaks, was \""
                    + id.replaceAll("\\R", "\\\\n") + "\"");
        }
        return new ElectionOptions(ttl, id, keyPrefix, clockDriftFactor, replication, counterRetention);
    }

    /**
     * An explicit prefix put before the name to make the key, after the client's key prefix. Default: none.
     *
     * @param keyPrefix the prefix; empty for none
     * @return a copy with this prefix
     */
    public ElectionOptions withKeyPrefix(String keyPrefix) {
        return new ElectionOptions(ttl, candidateId, Objects.requireNonNull(keyPrefix, "key prefix must not be null"),
                clockDriftFactor, replication, counterRetention);
    }

    /**
     * @param factor the share of the TTL assumed lost to clock drift
     * @return a copy with this factor
     * @throws IllegalArgumentException unless {@code 0 <= factor < 0.3}
     */
    public ElectionOptions withClockDriftFactor(double factor) {
        return new ElectionOptions(ttl, candidateId, keyPrefix, LeaseSession.checkDriftFactor(factor, 0.3),
                replication, counterRetention);
    }

    /**
     * Wait after each term taken at Redis (the election key, the term counter's increment) until
     * {@code replication}'s replicas have it ({@code WAIT} on the connection that wrote it); a term that too few
     * replicas acknowledged in time is given up at once (resigned, waited for, so another candidate may take it) and
     * the campaign fails with a {@link io.coordis.NotReplicatedException}: this candidate does not lead, and no
     * elected event was sent. Renewals do not wait: a
     * renewal lost in a failover leaves the replicated term with its earlier expiry, which the leader's local term
     * check covers. Default: the client's ({@code Coordis.Builder.replication}), none unless set. The lease
     * election only; the counter election refuses it.
     *
     * @param replication the replicas a new term waits for
     * @return a copy with this replication
     */
    public ElectionOptions withReplication(Replication replication) {
        Objects.requireNonNull(replication, "replication must not be null (use Replication.none() for no wait)");
        return new ElectionOptions(ttl, candidateId, keyPrefix, clockDriftFactor, replication, counterRetention);
    }

    /**
     * How long the election's term counter ({@code {name}:term}) is kept after it last gave a term; then it expires,
     * and the next campaign takes its term from Redis's clock, above every term the counter gave, as a lock's
     * fencing counter does (docs/safety.md, "Fencing numbers"); default
     * 10 minutes.
     *
     * @param retention how long to keep the counter
     * @return a copy with this retention
     * @throws IllegalArgumentException when below a second or above a day
     */
    public ElectionOptions withCounterRetention(Duration retention) {
        return new ElectionOptions(ttl, candidateId, keyPrefix, clockDriftFactor, replication,
                Fencing.checkRetention(retention));
    }

    /**
     * How long the term counter is kept after its last term ({@link #withCounterRetention}).
     *
     * @return the retention
     */
    public Duration counterRetention() {
        return counterRetention;
    }

    /**
     * The replication set by {@link #withReplication}; empty when the client's default applies.
     *
     * @return the replication, or empty for the client's
     */
    public Optional<Replication> replication() {
        return Optional.ofNullable(replication);
    }

    /**
     * How long a leader's term outlives its last renewal.
     *
     * @return the lease's time to live
     */
    public Duration ttl() {
        return ttl;
    }

    /**
     * The leader renews this often: a third of the TTL.
     *
     * @return the renewal interval
     */
    public Duration renewInterval() {
        return ttl.dividedBy(3);
    }

    /**
     * The value written to the election's key while this candidate leads.
     *
     * @return the candidate id
     */
    public String candidateId() {
        return candidateId;
    }

    /**
     * The explicit prefix put before the name.
     *
     * @return the prefix, or the empty string
     */
    public String keyPrefix() {
        return keyPrefix;
    }

    /**
     * The share of the TTL assumed lost to clock drift.
     *
     * @return the factor, 0 to below 0.3
     */
    public double clockDriftFactor() {
        return clockDriftFactor;
    }

    /**
     * How long after the start of a successful campaign or renewal the leader counts itself leader.
     *
     * @return the validity in nanoseconds
     */
    public long validityNanos() {
        return LeaseSession.validityNanos(ttl.toNanos(), clockDriftFactor);
    }

    @Override
    public String toString() {
        return "ElectionOptions[ttl=" + Durations.format(ttl) + ", candidateId=" + candidateId + ", keyPrefix='"
                + keyPrefix + "']";
    }
}
