package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.CoordisException;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * <p>One thread of its own per started initiator runs the campaign and the candidate's callbacks; an
 * {@code onGranted} that blocks delays the revocation of that term. Thread-safe.
 */
public final class CoordisLeaderInitiator implements SmartLifecycle, ApplicationEventPublisherAware {
    private static final Logger log = LoggerFactory.getLogger(CoordisLeaderInitiator.class);
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);

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
    private volatile Thread worker;
    private volatile LeaderElection election;
    private volatile Term current;

    /** A candidate with Coordis's default election options (TTL 15 s, renewed every 5 s). */
    public CoordisLeaderInitiator(Coordis coordis, Candidate candidate) {
        this(coordis, candidate, ElectionOptions.defaults());
    }

    /**
     * A candidate with {@code options}: their TTL is how long the role can stay without a leader after a leader
     * died. The election is named after the candidate's role, and the candidate's id is what Redis holds (and
     * operators see) while it leads, whatever id the options carry.
     *
     * @throws IllegalArgumentException when the candidate's id is blank or contains blanks
     */
    public CoordisLeaderInitiator(Coordis coordis, Candidate candidate, ElectionOptions options) {
        this.coordis = Objects.requireNonNull(coordis, "coordis must not be null");
        this.candidate = Objects.requireNonNull(candidate, "candidate must not be null");
        this.options = Objects.requireNonNull(options, "election options must not be null")
                .withCandidateId(candidate.getId());
        this.idle = new Term(null);
    }

    /** Where the granted and revoked events go; by default the application context's event publisher. */
    public void setLeaderEventPublisher(LeaderEventPublisher leaderEventPublisher) {
        this.leaderEventPublisher = leaderEventPublisher;
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher applicationEventPublisher) {
        this.applicationEventPublisher = applicationEventPublisher;
    }

    public void setAutoStartup(boolean autoStartup) {
        this.autoStartup = autoStartup;
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    public void setPhase(int phase) {
        this.phase = phase;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    /** The current term's context while leading; otherwise a context whose {@code isLeader()} is false. */
    public LeadershipContext getContext() {
        Term t = current;
        return t != null ? t : idle;
    }

    /** Starts campaigning on a thread of its own; does nothing when running. */
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
            Thread t = new Thread(this::campaign, "coordis-leader-" + candidate.getRole());
            t.setDaemon(true);
            worker = t;
            t.start();
        } finally {
            lifecycle.unlock();
        }
    }

    /**
     * Stops campaigning; a leader is revoked (callbacks and event) and then resigns, so another candidate takes
     * over at once. Blocks until that is done, at most 10 s.
     */
    @Override
    public void stop() {
        lifecycle.lock();
        try {
            if (!running) {
                return;
            }
            running = false;
            Thread t = worker;
            Term term = current;
            if (term != null) {
                term.end(false); // the worker revokes and resigns, then sees that it is not running
            } else {
                t.interrupt(); // ends the campaign
            }
            try {
                t.join(STOP_WAIT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            election.close();
        } finally {
            lifecycle.unlock();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private void campaign() {
        while (running) {
            Leadership leadership;
            try {
                leadership = election.campaign();
            } catch (InterruptedException e) {
                return;
            } catch (CoordisException e) {
                log.warn("campaign for role '{}' failed, trying again in {} ms: {}", candidate.getRole(),
                        options.renewInterval().toMillis(), e.getMessage());
                if (!pause(options.renewInterval())) {
                    return;
                }
                continue;
            }
            Term term = new Term(leadership);
            current = term;
            leadership.lost().thenRun(() -> term.end(false));
            boolean yielded = lead(term);
            if (yielded && running) {
                awaitAnotherLeader();
            }
        }
    }

    /** Grants {@code term}, waits for its end, revokes it, resigns; true when it ended by a yield. */
    private boolean lead(Term term) {
        if (!running) {
            current = null;
            resign(term);
            return false;
        }
        try {
            candidate.onGranted(term);
            publish(p -> p.publishOnGranted(this, term, candidate.getRole()), "granted");
            term.ended.await();
        } catch (InterruptedException e) {
            // stopping: the term ends below
        } catch (RuntimeException e) {
            log.warn("the candidate for role '{}' failed when granted term {}; resigning", candidate.getRole(),
                    term.term(), e);
        } finally {
            term.end(false);
            current = null;
            Thread.interrupted(); // the revocation below runs whole, also when stopping
            try {
                candidate.onRevoked(term);
            } catch (RuntimeException e) {
                log.warn("the candidate for role '{}' failed when revoked", candidate.getRole(), e);
            }
            publish(p -> p.publishOnRevoked(this, term, candidate.getRole()), "revoked");
            resign(term);
        }
        return term.yielded;
    }

    private void resign(Term term) {
        try {
            term.leadership.resign();
        } catch (CoordisException e) {
            log.warn("resigning term {} of role '{}' failed; it expires by its TTL: {}", term.term(),
                    candidate.getRole(), e.getMessage());
        }
    }

    /** After a yield: waits until another candidate leads, at most a third of the TTL, so the yield is not undone. */
    private void awaitAnotherLeader() {
        CountDownLatch other = new CountDownLatch(1);
        AutoCloseable watch;
        try {
            watch = election.observe(e -> e.leader().filter(l -> !l.id().equals(election.candidateId()))
                    .ifPresent(l -> other.countDown()));
        } catch (CoordisException e) {
            log.debug("cannot watch role '{}' after a yield: {}", candidate.getRole(), e.getMessage());
            return;
        }
        try {
            other.await(options.renewInterval().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                watch.close();
            } catch (Exception e) {
                log.debug("closing the watch of role '{}' failed: {}", candidate.getRole(), e.getMessage());
            }
        }
    }

    private boolean pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
            return true;
        } catch (InterruptedException e) {
            return false;
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
        private final CountDownLatch ended = new CountDownLatch(1);
        private volatile boolean yielded;

        Term(Leadership leadership) {
            this.leadership = leadership;
        }

        void end(boolean byYield) {
            if (byYield && ended.getCount() > 0) {
                yielded = true;
            }
            ended.countDown();
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
            return leadership != null && ended.getCount() > 0 && leadership.isHeld();
        }

        @Override
        public void yield() {
            if (leadership != null) {
                log.debug("role '{}' yields term {}", candidate.getRole(), term());
                end(true);
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
