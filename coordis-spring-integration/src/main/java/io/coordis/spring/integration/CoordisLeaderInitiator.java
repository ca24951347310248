package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.election.Candidacy;
import io.coordis.election.CandidacyListener;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.SmartLifecycle;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.event.DefaultLeaderEventPublisher;
import org.springframework.integration.leader.event.LeaderEventPublisher;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Runs a Spring Integration {@link Candidate} in a Coordis lease election named after its role, in place of
 * {@code LockRegistryLeaderInitiator}: on election it calls {@code onGranted} and publishes an
 * {@code OnGrantedEvent}, at the end of the term {@code onRevoked} and an {@code OnRevokedEvent}, so that
 * Spring Integration's {@code SmartLifecycleRoleController} starts and stops the endpoints of that role.
 *
 * <p>Nothing polls. A waiting candidate wakes when the leader resigns or its TTL runs out; a leader that loses its
 * term (renewal refused, or Redis out of reach until its local validity ran out) is revoked at once, within that
 * validity, before Redis lets another candidate in. {@link LeadershipContext#yield()} and {@link #stop()} revoke
 * first and then resign, so the next leader starts while this one's endpoints are already stopped. The context
 * carries the term ({@link LeadershipContext#term()}), the fencing number of the leader's writes.
 *
 * <p>No thread of its own: the campaign is a Coordis {@link Candidacy}, and the candidate's callbacks and the events
 * run on the client's callback executor, one at a time and in order; an {@code onGranted} that blocks delays the
 * revocation of that term. Thread-safe.
 */
public final class CoordisLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware {
    private static final Logger log = LoggerFactory.getLogger(CoordisLeaderInitiator.class);

    private final Coordis coordis;
    private final Candidate candidate;
    private final ElectionOptions options;
    private final ReentrantLock lifecycle = new ReentrantLock();
    private final Term idle;
    private volatile LeaderEventPublisher leaderEventPublisher;
    private volatile ApplicationEventPublisher applicationEventPublisher;
    private volatile boolean autoStartup = true;
    private volatile int phase = Integer.MAX_VALUE - 1000;
    private volatile boolean running;
    private volatile LeaderElection election;
    private volatile Candidacy candidacy;
    private volatile Term current;

    /**
     * A candidate with Coordis's default election options (TTL 15 s, renewed every 5 s).
     *
     * @param coordis   the client the election runs on
     * @param candidate the role and id to campaign with
     */
    public CoordisLeaderInitiator(Coordis coordis, Candidate candidate) {
        this(coordis, candidate, ElectionOptions.defaults());
    }

    /**
     * A candidate with {@code options}: their TTL is how long the role can stay without a leader after a leader
     * died. The election is named after the candidate's role, and the candidate's id is what Redis holds (and
     * operators see) while it leads, whatever id the options carry.
     *
     * @param coordis   the client the election runs on
     * @param candidate the role and id to campaign with
     * @param options   the election's options; their candidate id is replaced by the candidate's
     * @throws IllegalArgumentException when the candidate's id is blank or contains blanks
     */
    public CoordisLeaderInitiator(Coordis coordis, Candidate candidate, ElectionOptions options) {
        this.coordis = Objects.requireNonNull(coordis, "coordis must not be null");
        this.candidate = Objects.requireNonNull(candidate, "candidate must not be null");
        this.options = Objects.requireNonNull(options, "election options must not be null")
                .withCandidateId(candidate.getId());
        this.idle = new Term(null);
    }

    /**
     * Where the granted and revoked events go; by default the application context's event publisher.
     *
     * @param leaderEventPublisher where the events go
     */
    public void setLeaderEventPublisher(LeaderEventPublisher leaderEventPublisher) {
        this.leaderEventPublisher = leaderEventPublisher;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        this.applicationEventPublisher = applicationEventPublisher;
    }

    /**
     * Whether the candidate starts campaigning when the application context starts. Default: {@code true}.
     *
     * @param autoStartup whether to start with the context
     */
    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    /**
     * The lifecycle phase in which the candidate starts and stops. Default: {@code Integer.MAX_VALUE - 1000}, late, so
     * the beans a leader uses are started first.
     *
     * @param phase the phase
     */
    public void setPhase(int phase) {
        this.phase = phase;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /**
     * The current term's context while leading; otherwise a context whose {@code isLeader()} is false.
     *
     * @return the context of the current term, or one that does not lead
     */
    public LeadershipContext getContext() {
        Term t = current;
        return t != null ? t : idle;
    }

    /** Starts campaigning; does nothing when running. */
    @Override
    public void start() {
        lifecycle.lock();
        try {
            if (running) {
                return;
            }
            if (leaderEventPublisher == null && applicationEventPublisher != null) {
                leaderEventPublisher = new DefaultLeaderEventPublisher(applicationEventPublisher);
            }
            election = coordis.election(candidate.getRole(), options);
            running = true;
            Terms terms = new Terms();
            candidacy = election.candidacy(terms);
            terms.candidacy.complete(candidacy);
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Stops campaigning; a leader is revoked (callbacks and event) and then resigns, so another candidate takes
     * over at once. Blocks until that is done.
     */
    @Override
    public void stop() {
        lifecycle.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
            candidacy.close();
            election.close();
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The candidacy's leaderships as terms: granted and revoked to the candidate and as events. */
    private final class Terms implements CandidacyListener {
        /** The candidacy told, once {@code election.candidacy} returned it (a grant may come first). */
        final CompletableFuture<Candidacy> candidacy = new CompletableFuture<>();

        @Override
        public void granted(Leadership leadership) {
            Term term = new Term(leadership);
            current = term;
            try {
                candidate.onGranted(term);
            } catch (RuntimeException | InterruptedException e) { // an interrupt ends the term, as a failure does
                log.warn("the candidate for role '{}' failed when granted term {}; resigning", candidate.getRole(),
                        term.term(), e);
                candidacy.thenAccept(c -> c.resign(Duration.ZERO));
                return;
            }
            publish(p -> p.publishOnGranted(CoordisLeaderInitiator.this, term, candidate.getRole()), "granted");
        }

        @Override
        public void revoked(Leadership leadership) {
            Term ended = current;
            if (ended == null || ended.leadership != leadership) {
                ended = new Term(leadership);
            }
            current = null;
            ended.ended = true;
            Term term = ended;
            try {
                candidate.onRevoked(term);
            } catch (RuntimeException e) {
                log.warn("the candidate for role '{}' failed when revoked", candidate.getRole(), e);
            }
            publish(p -> p.publishOnRevoked(CoordisLeaderInitiator.this, term, candidate.getRole()), "revoked");
        }
    }

    private void publish(Consumer<LeaderEventPublisher> event, String what) {
        LeaderEventPublisher p = leaderEventPublisher;
        if (p == null) {
            return;
        }
        try {
            event.accept(p);
        } catch (RuntimeException e) {
            log.warn("publishing the {} event of role '{}' failed", what, candidate.getRole(), e);
        }
    }

    @Override
    public String toString() {
        return "CoordisLeaderInitiator[role=" + candidate.getRole() + ", id=" + candidate.getId() + ", "
                + getContext() + "]";
    }

    /** One term of leadership, or the idle context (no leadership). */
    private final class Term implements LeadershipContext {
        private final Leadership leadership;
        /** Revoked or yielded. */
        private volatile boolean ended;

        Term(Leadership leadership) {
            this.leadership = leadership;
        }

        @Override
        public long term() {
            return leadership == null ? 0 : leadership.term();
        }

        @Override
        public Optional<Leadership> leadership() {
            return Optional.ofNullable(leadership);
        }

        @Override
        public boolean isLeader() {
            return leadership != null && !ended && leadership.isHeld();
        }

        @Override
        public void yield() {
            if (isLeader()) {
                log.debug("role '{}' yields term {}", candidate.getRole(), term());
                ended = true;
                candidacy.resign(options.renewInterval());
            }
        }

        @Override
        public String getRole() {
            return candidate.getRole();
        }

        @Override
        public String toString() {
            return "LeadershipContext[role=" + candidate.getRole() + ", id=" + candidate.getId() + ", term="
                    + term() + ", leader=" + isLeader() + "]";
        }
    }
}
