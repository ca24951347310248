package io.coordis.internal.election;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.Replication;
import io.coordis.Telemetry;
import io.coordis.election.ElectionListener;
import io.coordis.election.ElectionOptions;
import io.coordis.election.Leader;
import io.coordis.election.LeaderElection;
import io.coordis.election.LeaderEvent;
import io.coordis.election.Leadership;
import io.coordis.election.LeadershipLostException;
import io.coordis.internal.Durations;
import io.coordis.internal.Keys;
import io.coordis.internal.Named;
import io.coordis.internal.Replicas;
import io.coordis.internal.Timer;
import io.coordis.internal.Tokens;
import io.coordis.election.Candidacy;
import io.coordis.election.CandidacyListener;
import io.coordis.internal.lease.LossScope;
import io.coordis.internal.redis.ChannelRegistration;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.PubSubListener;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.ReplicatedWrite;
import io.coordis.internal.redis.Replies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * {@link LeaderElection} by three scripts: {@code elect.lua} (campaign and renew), {@code resign.lua}
 * and {@code claim.lua} (read by a {@link LeaderReader}). Keys: the leader key (prefix + name), {@code {name}:term} (the counter),
 * {@code {name}:leader} (id, term, since and the claim of the campaign try that won the current leadership);
 * channel {@code {name}:changed}.
 */
final class LeaseElection extends Named implements LeaderElection {
    static final LuaScript ELECT = LuaScript.load(LeaseElection.class, "elect.lua");
    static final LuaScript RESIGN = LuaScript.load(LeaseElection.class, "resign.lua");
    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);

    private final Node node;
    private final String termKey;
    private final String detailsKey;
    private final String channel;
    private final ElectionOptions options;
    private final Replication replication;
    private final String id;
    private final Timer timer;
    private final Duration opTimeout;
    private final Set<LeaderWatch> watches = ConcurrentHashMap.newKeySet();
    private final CandidateEvents events;
    private final LeaderReader reader;
    private final Resignations resignations;
    /** Completes when the candidate's last campaign is over: each starts after the one before it. */
    private final AtomicReference<CompletableFuture<Void>> campaigns =
            new AtomicReference<>(CompletableFuture.completedFuture(null));
    private final Telemetry telemetry;
    private volatile HeldLeadership current;
    private volatile boolean closed;

    LeaseElection(Node node, String name, String key, ElectionOptions options, Timer timer, Telemetry telemetry) {
        super("election", name, key);
        this.node = node;
        this.termKey = Keys.derived(key, "term");
        this.detailsKey = Keys.derived(key, "leader");
        this.channel = Keys.derived(key, "changed");
        this.options = options;
        this.replication = options.replication().orElse(Replication.none());
        this.id = options.candidateId();
        this.timer = timer;
        this.telemetry = telemetry;
        this.events = new CandidateEvents(name, id, timer, telemetry);
        this.reader = new LeaderReader(node, name, key, detailsKey, events);
        this.resignations = new Resignations(node, this, detailsKey, channel, id);
        Duration third = options.renewInterval();
        this.opTimeout = third.compareTo(node.commandTimeout()) < 0 ? third : node.commandTimeout();
    }

    @Override
    public String candidateId() {
        return id;
    }

    @Override
    public Optional<Leadership> campaign(Duration timeout) throws InterruptedException {
        Durations.notNegative(timeout, "campaign timeout");
        return Optional.ofNullable(awaitCampaign(Durations.saturatedNanos(timeout), false));
    }

    @Override
    public Leadership campaign() throws InterruptedException {
        return awaitCampaign(Long.MAX_VALUE, true);
    }

    @Override
    public CompletableFuture<Optional<Leadership>> campaignAsync(Duration timeout) {
        Durations.notNegative(timeout, "campaign timeout");
        Campaign campaign = start(Durations.saturatedNanos(timeout), false);
        return timer.relay(campaign.result, Optional::<Leadership>ofNullable,
                f -> f instanceof CoordisException e ? named(e) : f, won -> {
                    if (!campaign.reused) {
                        won.resignInBackground(); // the caller cancelled in the instant it was won
                    }
                });
    }

    /**
     * A campaign waited for on this thread: the same {@link Campaign} as {@link #campaignAsync}, and an interrupt
     * cancels it (a leadership won in that instant is resigned). A failure names the election.
     */
    private HeldLeadership awaitCampaign(long waitNanos, boolean untilElected) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Campaign campaign = start(waitNanos, untilElected);
        try {
            return campaign.result.get();
        } catch (InterruptedException e) {
            if (!campaign.result.cancel(false)) {
                HeldLeadership won = campaign.result.getNow(null);
                if (won != null && !campaign.reused) {
                    won.resignInBackground();
                }
            }
            throw e;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof CoordisException c) {
                throw named(c);
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof InterruptedException i) {
                throw i;
            }
            throw new IllegalStateException(cause);
        }
    }

    /**
     * Starts a campaign after the ones before it (one runs at a time per candidate), told to the telemetry once:
     * ends with the leadership, or {@code null} past {@code waitNanos} unless {@code untilElected}.
     */
    private Campaign start(long waitNanos, boolean untilElected) {
        checkOpen();
        Campaign campaign = new Campaign(this, timer, telemetry.campaigning(name), waitNanos, untilElected);
        campaign.after(campaigns.getAndSet(campaign.over));
        return campaign;
    }

    /** This candidate's leadership while it is valid, else {@code null}. */
    HeldLeadership currentLeadership() {
        HeldLeadership mine = current;
        return mine != null && mine.isHeld() ? mine : null;
    }

    /** Registers {@code listener} for the announcements on the election's channel; never blocks. */
    ChannelRegistration subscribeChanges(PubSubListener listener) {
        return node.subscribeLater(List.of(channel), false, listener);
    }

    /** The failure of a subscription to the election's channel, naming the node and the election. */
    CoordisException subscribeFailure(Throwable failure) {
        return named(node.translate(failure));
    }

    /** One campaign try: a leadership won, or the other leader's remaining TTL. */
    record Attempt(HeldLeadership won, long pttlMillis) {
    }

    /**
     * Sends one campaign try; completes with its answer on the reply's thread, or fails naming the election (a
     * try whose answer was lost resigns, in the background, what it may have won).
     */
    CompletableFuture<Attempt> attemptAsync() {
        long start = timer.now();
        long seen = events.highestTerm();
        String claim = Tokens.next();
        List<String> keys = List.of(key, termKey, detailsKey);
        List<String> args = List.of(id, Durations.millis(options.ttl()), "0", Long.toString(seen),
                Long.toString(System.currentTimeMillis()), channel, claim, Durations.millis(options.counterRetention()));
        // a term that must reach replicas is written where its WAIT will run, on a connection of its own
        ReplicatedWrite<String> on = replication.isNone() ? null : node.replicatedWrite();
        CompletableFuture<Object> reply = node.within(on == null ? node.eval(ELECT, keys, args)
                : on.eval(ELECT, keys, args), opTimeout);
        CompletableFuture<Attempt> attempt = reply.handle((raw, failure) -> {
            if (failure != null) {
                CoordisException e = node.translate(failure);
                if (on != null) {
                    on.close(); // dropped, unanswered, before the resignation goes out on the shared connection
                }
                if (e instanceof NodeUnavailableException) {
                    resignations.claimInBackground(claim);
                }
                throw named(e);
            }
            return raw;
        }).thenCompose(raw -> replicated(raw, on)).thenApply(raw -> {
            List<?> r = Replies.list(raw, 3, ELECT, node.address());
            if (Replies.isOne(r)) {
                long term = Replies.number(r, 1, ELECT, node.address());
                HeldLeadership won = new HeldLeadership(this, term, start, options, timer, telemetry);
                current = won;
                events.elected(won, seen, Replies.number(r, 2, ELECT, node.address()));
                return new Attempt(won, 0);
            }
            long pttl = Replies.number(r, 1, ELECT, node.address());
            events.observed(r.size() > 2 ? r.get(2) : null, r.size() > 3 ? r.get(3) : null);
            return new Attempt(null, pttl);
        });
        if (on != null) {
            attempt.whenComplete((a, f) -> on.close());
        }
        return attempt;
    }

    /**
     * {@code raw}, a campaign try's answer written on {@code on}, once a term it won reached the replicas the options
     * ask for; a term that did not is resigned (waited for) and the try fails with the
     * {@link io.coordis.NotReplicatedException}.
     */
    private CompletableFuture<Object> replicated(Object raw, ReplicatedWrite<String> on) {
        List<?> r = Replies.list(raw, 3, ELECT, node.address());
        if (on == null || !Replies.isOne(r)) {
            return CompletableFuture.completedFuture(raw);
        }
        long term = Replies.number(r, 1, ELECT, node.address());
        return Replicas.confirm(on.replicate(key, replication.replicas(), replication.timeout()), replication,
                        object(), key, node.addressFor(key),
                        "term " + term + " was given up and this candidate does not lead")
                .handle((v, f) -> f == null ? CompletableFuture.completedFuture(raw)
                        : resignations.send(term).handle((x, g) -> {
                            Throwable cause = f instanceof CompletionException && f.getCause() != null
                                    ? f.getCause() : f;
                            throw cause instanceof CoordisException c ? named(c) : named(node.translate(cause));
                        }))
                .thenCompose(x -> x);
    }

    /** Renews {@code term}; completes with {@code false} when Redis no longer holds it for this candidate. */
    CompletableFuture<Boolean> renew(long term) {
        CompletableFuture<Object> reply = node.eval(ELECT, List.of(key, termKey, detailsKey), List.of(id,
                Durations.millis(options.ttl()), Long.toString(term), Long.toString(events.highestTerm()),
                Long.toString(System.currentTimeMillis()), channel, "", Durations.millis(options.counterRetention())));
        return node.within(reply, opTimeout).thenApply(v -> {
            List<?> r = Replies.list(v, 3, ELECT, node.address());
            if (Replies.isOne(r)) {
                return true;
            }
            events.observed(r.size() > 2 ? r.get(2) : null, r.size() > 3 ? r.get(3) : null);
            return false;
        });
    }

    /** Deletes the key if it holds this candidate's {@code term}, and announces it; blocking. */
    boolean resignAtRedis(long term) {
        return resignations.resign(term);
    }

    void resignInBackground(long term) {
        resignations.inBackground(term);
    }

    /** Called by a leadership (under its monitor) when it ends. */
    void ended(HeldLeadership leadership, String reason) {
        if (current == leadership) {
            current = null;
        }
        events.ended(leadership, reason);
    }

    @Override
    public Optional<Leadership> leadership() {
        HeldLeadership mine = current;
        return mine != null && mine.isHeld() ? Optional.of(mine) : Optional.empty();
    }

    @Override
    public boolean resign() {
        HeldLeadership mine = current;
        return mine != null && mine.resign();
    }

    @Override
    public Optional<Leader> leader() {
        return reader.leader();
    }

    @Override
    public long highestTermSeen() {
        return events.highestTerm();
    }

    @Override
    public AutoCloseable observe(Consumer<LeaderEvent> events) {
        checkOpen();
        LeaderWatch watch = new LeaderWatch(name, reader, node, channel, events, options.ttl(), timer);
        watches.add(watch);
        try {
            watch.start();
        } catch (RuntimeException e) {
            watches.remove(watch);
            throw e instanceof CoordisException ce ? named(ce) : e;
        }
        return () -> {
            watches.remove(watch);
            watch.close();
        };
    }

    @Override
    public Candidacy candidacy(CandidacyListener listener) {
        return StandingCandidacy.start(this, timer, listener);
    }

    @Override
    public void addListener(ElectionListener listener) {
        events.add(listener);
    }

    @Override
    public void removeListener(ElectionListener listener) {
        events.remove(listener);
    }

    @Override
    public <T> Optional<T> whileLeader(Duration wait, LeaderTask<T> task) throws InterruptedException {
        Objects.requireNonNull(task, "task must not be null");
        Optional<Leadership> won = campaign(wait);
        if (won.isEmpty()) {
            return Optional.empty();
        }
        Leadership leadership = won.get();
        try {
            return Optional.ofNullable(LossScope.run(leadership.lost(), () -> task.run(leadership),
                    () -> lostWhileRunning(leadership)));
        } finally {
            resignQuietly(leadership);
        }
    }

    private LeadershipLostException lostWhileRunning(Leadership leadership) {
        return new LeadershipLostException(node.address(), "leadership of '" + name + "' (term "
                + leadership.term() + ") ended while the work was running; the work was interrupted", leadership.term());
    }

    private void resignQuietly(Leadership leadership) {
        try {
            leadership.resign();
        } catch (CoordisException e) {
            log.warn("could not resign leadership of '{}' (term {}): {}; it expires by its TTL", name,
                    leadership.term(), e.getMessage());
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("election '" + name + "' was closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        for (LeaderWatch w : watches) {
            w.close();
        }
        watches.clear();
        HeldLeadership mine = current;
        if (mine != null) {
            resignQuietly(mine);
        }
    }

    @Override
    public String toString() {
        return "LeaderElection[" + key + " on " + node.address() + ", " + options + "]";
    }
}
