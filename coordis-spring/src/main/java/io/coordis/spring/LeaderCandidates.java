package io.coordis.spring;

import io.coordis.CoordisException;
import io.coordis.DurationText;
import io.coordis.election.Candidacy;
import io.coordis.election.CandidacyListener;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.context.SmartLifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The application context's candidates, one per election that {@link LeaderOnly} methods name: each is a
 * {@link Candidacy} from the context's start, which campaigns again after a lost leadership without a thread of its
 * own, and resigns when the context stops, so another instance leads at once.
 */
final class LeaderCandidates implements SmartLifecycle, BeanFactoryAware {
    private static final Logger log = LoggerFactory.getLogger(LeaderCandidates.class);

    private final Map<String, Candidate> candidates = new LinkedHashMap<>();
    private Attributes attributes;
    private boolean running;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.attributes = new Attributes(beanFactory);
    }

    /** Declares a candidate for {@code name} (once per name); starts it at once if the context runs already. */
    synchronized void declare(String name, Duration ttl, String method) {
        Candidate existing = candidates.get(name);
        if (existing != null) {
            if (!existing.ttl.equals(ttl)) {
                throw new IllegalStateException("@LeaderOnly on " + method + " names election '" + name + "' with ttl "
                        + DurationText.format(ttl) + ", but " + existing.declaredBy + " names it with ttl "
                        + DurationText.format(existing.ttl) + "; give both the same ttl");
            }
            return;
        }
        Candidate c = new Candidate(name, ttl, method);
        candidates.put(name, c);
        if (running) {
            c.start(attributes);
        }
    }

    /** This instance's valid leadership of {@code name}, if it leads now. Does not block. */
    Optional<Leadership> leadership(String name) {
        Candidate c;
        synchronized (this) {
            c = candidates.get(name);
        }
        return c == null ? Optional.empty() : c.leadership();
    }

    @Override
    public synchronized void start() {
        running = true;
        candidates.values().forEach(c -> c.start(attributes));
    }

    @Override
    public void stop() {
        List<Candidate> all;
        synchronized (this) {
            running = false;
            all = new ArrayList<>(candidates.values());
        }
        all.forEach(Candidate::stop);
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    /**
     * Started before, and stopped after, the default phase: scheduled jobs start with the candidate campaigning,
     * and have stopped by the time it resigns.
     */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 1024;
    }

    private static final class Candidate {
        final String name;
        final Duration ttl;
        final String declaredBy;
        private volatile LeaderElection election;
        private volatile Candidacy candidacy;

        Candidate(String name, Duration ttl, String declaredBy) {
            this.name = name;
            this.ttl = ttl;
            this.declaredBy = declaredBy;
        }

        void start(Attributes attributes) {
            LeaderElection e = attributes.coordis().election(name, ElectionOptions.defaults().withTtl(ttl));
            election = e;
            // the candidacy logs its leaderships and failures; @LeaderOnly asks for the leadership when called
            candidacy = e.candidacy(new CandidacyListener() {
            });
        }

        Optional<Leadership> leadership() {
            Candidacy c = candidacy;
            return c == null ? Optional.empty() : c.leadership();
        }

        /** Stops campaigning and resigns, so another candidate leads at once. */
        void stop() {
            Candidacy c = candidacy;
            if (c != null) {
                c.close();
            }
            LeaderElection e = election;
            if (e != null) {
                try {
                    e.close();
                } catch (CoordisException failure) {
                    log.warn("could not resign election '{}': {}; it ends by its TTL", name, failure.getMessage());
                }
            }
        }
    }
}
