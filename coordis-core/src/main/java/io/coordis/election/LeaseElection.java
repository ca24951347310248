package io.coordis.election;

import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.Ticker;
import io.coordis.internal.Durations;
import io.coordis.internal.Keys;
import io.coordis.internal.Tokens;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.Replies;
import io.coordis.internal.redis.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * {@link LeaderElection} by three scripts: {@code elect.lua} (campaign and renew), {@code resign.lua}
 * and {@code leader.lua}. Keys: the leader key (prefix + name), {@code {name}:term} (the counter),
 * {@code {name}:leader} (id, term, since and the claim of the campaign try that won the current leadership);
 * channel {@code {name}:changed}.
 */
final class LeaseElection implements LeaderElection {
    static final LuaScript ELECT = LuaScript.load(LeaseElection.class, "elect.lua");
    static final LuaScript RESIGN = LuaScript.load(LeaseElection.class, "resign.lua");
    static final LuaScript LEADER = LuaScript.load(LeaseElection.class, "leader.lua");
    private static final Logger log = LoggerFactory.getLogger(LeaseElection.class);
    /** Upper bound of the random delay added to TTL-based wake-ups, so that candidates spread out. */
    private static final long MAX_JITTER_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** How long to wait before looking again at a leader key without expiry (written by something else). */
    private static final long NO_EXPIRY_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RedisNode node;
    private final String name;
    private final String key;
    private final String termKey;
    private final String detailsKey;
    private final String channel;
    private final ElectionOptions options;
    private final String id;
    private final Ticker ticker;
    private final ScheduledExecutorService scheduler;
    private final Duration opTimeout;
    private final List<ElectionListener> listeners = new CopyOnWriteArrayList<>();
    private final Set<LeaderWatch> watches = ConcurrentHashMap.newKeySet();
    private final TermHistory terms = new TermHistory();
    private final ReentrantLock campaigning = new ReentrantLock();
    private volatile HeldLeadership current;
    private volatile boolean closed;

    LeaseElection(RedisNode node, String name, ElectionOptions options, Ticker ticker, ScheduledExecutorService scheduler) {
        this.node = node;
        this.name = name;
        this.key = options.keyPrefix() + name;
        this.termKey = Keys.derived(key, "term");
        this.detailsKey = Keys.derived(key, "leader");
        this.channel = Keys.derived(key, "changed");
        this.options = options;
        this.id = options.candidateId();
        this.ticker = ticker;
        this.scheduler = scheduler;
        Duration third = options.renewInterval();
        this.opTimeout = third.compareTo(node.commandTimeout()) < 0 ? third : node.commandTimeout();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String key() {
        return key;
    }

    @Override
    public String candidateId() {
        return id;
    }

    @Override
    public Optional<Leadership> campaign(Duration timeout) throws InterruptedException {
        Durations.notNegative(timeout, "campaign timeout");
        try {
            return Optional.ofNullable(campaignWithin(Durations.saturatedNanos(timeout)));
        } catch (CoordisException e) {
            throw named(e);
        }
    }

    @Override
    public Leadership campaign() throws InterruptedException {
        Leadership l;
        do {
            try {
                l = campaignWithin(Long.MAX_VALUE);
            } catch (CoordisException e) {
                throw named(e);
            }
        } while (l == null);
        return l;
    }

    /** {@code e} naming this election, e.g. {@code election 'reports': Redis at ... is out of memory}. */
    CoordisException named(CoordisException e) {
        return io.coordis.internal.Failures.about(io.coordis.internal.Failures.object("election", name), e);
    }

    /**
     * Tries once; while another candidate leads, waits for an announcement on the channel or for the
     * leader's TTL to run out (plus jitter), then tries again. The first retry comes right after the
     * subscription is confirmed, so a resignation between the first try and the subscription is not missed.
     */
    private Leadership campaignWithin(long waitNanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        checkOpen();
        long deadline = Durations.saturatedAdd(ticker.read(), waitNanos);
        if (!campaigning.tryLock(waitNanos, TimeUnit.NANOSECONDS)) {
            return null;
        }
        try {
            HeldLeadership mine = current;
            if (mine != null && mine.isValid()) {
                return mine;
            }
            Attempt attempt = attempt();
            if (attempt.won != null || deadline - ticker.read() <= 0) {
                return attempt.won;
            }
            Semaphore bell = new Semaphore(0);
            // a change of leader rings the bell, and so does closing the client: the next attempt then fails
            // naming the closed connection instead of sleeping out the leader's TTL
            try (Subscription ignored = node.subscribe(channel, new io.coordis.internal.redis.PubSubListener() {
                @Override
                public void message(String ch, String message) {
                    bell.release();
                }

                @Override
                public void closed() {
                    bell.release();
                }
            })) {
                while (true) {
                    attempt = attempt();
                    if (attempt.won != null) {
                        return attempt.won;
                    }
                    long left = deadline - ticker.read();
                    if (left <= 0) {
                        return null;
                    }
                    if (bell.tryAcquire(Math.min(left, sleepFor(attempt.pttlMillis)), TimeUnit.NANOSECONDS)) {
                        bell.drainPermits();
                    }
                }
            }
        } finally {
            campaigning.unlock();
        }
    }

    /** One campaign try: a leadership won, or the other leader's remaining TTL. */
    private record Attempt(HeldLeadership won, long pttlMillis) {
    }

    private Attempt attempt() throws InterruptedException {
        long start = ticker.read();
        long seen = terms.highest();
        String claim = Tokens.next();
        CompletableFuture<Object> reply = node.eval(ELECT, List.of(key, termKey, detailsKey), List.of(id,
                Long.toString(options.ttl().toMillis()), "0", Long.toString(seen),
                Long.toString(System.currentTimeMillis()), channel, claim));
        List<?> r;
        try {
            r = Replies.list(node.await(reply, opTimeout), 3, ELECT, node.address());
        } catch (CoordisException e) {
            if (e instanceof NodeUnavailableException) {
                resignClaimInBackground(claim);
            }
            throw e;
        } catch (InterruptedException e) {
            resignClaimInBackground(claim);
            throw e;
        }
        if (Replies.isOne(r)) {
            long term = Replies.number(r, 1, ELECT, node.address());
            long regressed = Replies.number(r, 2, ELECT, node.address());
            if (regressed > 0) {
                regression(seen, regressed, "Redis handed out term " + regressed + "; it was refused and "
                        + "the counter raised, this candidate leads with term " + term);
            }
            terms.elected(id, term);
            HeldLeadership won = new HeldLeadership(this, term, start, options, ticker, scheduler);
            current = won;
            log.info("'{}' elected leader of '{}' with term {}", id, name, term);
            dispatch(l -> l.elected(won));
            return new Attempt(won, 0);
        }
        long pttl = Replies.number(r, 1, ELECT, node.address());
        noteOtherLeader(r.size() > 2 ? r.get(2) : null, r.size() > 3 ? r.get(3) : null);
        return new Attempt(null, pttl);
    }

    /** A busy or renewal answer named the current leader: check its term against what was seen. */
    private void noteOtherLeader(Object leaderId, Object term) {
        if (leaderId instanceof String other && term instanceof Long t) {
            TermHistory.Seen seen = terms.record(other, t);
            if (seen.regressed() && seen.firstReport()) {
                regression(seen.highestBefore(), t, "'" + other + "' leads with term " + t);
            }
        }
    }

    private void regression(long highestSeen, long got, String what) {
        log.error("TERM REGRESSION in election '{}': {}, but term {} was seen before. Redis lost data (restart "
                + "without persistence, or failover to a replica that lagged); fenced resources refuse terms not "
                + "above the highest they accepted", name, what, highestSeen);
        dispatch(l -> l.termRegressed(highestSeen, got));
    }

    /**
     * After a campaign try whose answer was lost (a timeout, a broken connection) or not waited for (an
     * interrupt): resigns the leadership that try may have won, known by its claim since its term is unknown,
     * sent at once and not waited for. Nobody else waits a TTL for a leader that does not know it leads. On a
     * connection kept after the try (an interrupt) it runs after the try; after a timeout or a broken
     * connection it goes out on the new connection, when the try has run or never will (except on a server
     * stalled past the command timeout that had not read it yet: what it won then expires by its TTL).
     */
    private void resignClaimInBackground(String claim) {
        inBackground(node.eval(RESIGN, List.of(key, detailsKey), List.of(id, "", channel, claim)),
                "resign a campaign's lost win");
    }

    private static long sleepFor(long pttlMillis) {
        long jitter = ThreadLocalRandom.current().nextLong(TimeUnit.MILLISECONDS.toNanos(1), MAX_JITTER_NANOS);
        if (pttlMillis == -2) {
            return 0;
        }
        if (pttlMillis < 0) {
            return NO_EXPIRY_RECHECK_NANOS + jitter;
        }
        return TimeUnit.MILLISECONDS.toNanos(pttlMillis) + jitter;
    }

    /** Renews {@code term}; completes with {@code false} when Redis no longer holds it for this candidate. */
    CompletableFuture<Boolean> renew(long term) {
        CompletableFuture<Object> reply = node.eval(ELECT, List.of(key, termKey, detailsKey), List.of(id,
                Long.toString(options.ttl().toMillis()), Long.toString(term), Long.toString(terms.highest()),
                Long.toString(System.currentTimeMillis()), channel, ""));
        return node.within(reply, opTimeout).thenApply(v -> {
            List<?> r = Replies.list(v, 3, ELECT, node.address());
            if (Replies.isOne(r)) {
                return true;
            }
            noteOtherLeader(r.size() > 2 ? r.get(2) : null, r.size() > 3 ? r.get(3) : null);
            return false;
        });
    }

    /** Deletes the key if it holds this candidate's {@code term}, and announces it; blocking. */
    boolean resignAtRedis(long term) {
        Object reply;
        try {
            reply = node.awaitUninterruptibly(resignScript(term), node.commandTimeout());
        } catch (CoordisException e) {
            if (e instanceof NodeUnavailableException) {
                resignInBackground(term); // the resignation may never have reached Redis: once more, not waited for
            }
            throw named(e);
        }
        boolean resigned = Replies.isOne(Replies.list(reply, 1, RESIGN, node.address()));
        log.info("'{}' resigned leadership of '{}' (term {}){}", id, name, term, resigned ? "" : "; it had ended at Redis already");
        return resigned;
    }

    void resignInBackground(long term) {
        inBackground(resignScript(term), "clear ended term " + term);
    }

    /** A resignation sent and not waited for: a failure is only logged, and what it ends expires by its TTL. */
    private void inBackground(CompletableFuture<Object> resignation, String what) {
        resignation.whenComplete((v, f) -> {
            if (f != null) {
                log.debug("could not {} of '{}' at Redis: {}", what, name, f.getMessage());
            }
        });
    }

    private CompletableFuture<Object> resignScript(long term) {
        return node.eval(RESIGN, List.of(key, detailsKey), List.of(id, Long.toString(term), channel));
    }

    /** Called by a leadership (under its monitor) when it ends. */
    void ended(HeldLeadership leadership, String reason) {
        if (current == leadership) {
            current = null;
        }
        if (reason.equals("resigned")) {
            log.debug("'{}' ended term {} of '{}': {}", id, leadership.term(), name, reason);
        } else {
            log.warn("'{}' is no longer leader of '{}' (term {}): {}", id, name, leadership.term(), reason);
        }
        dispatch(l -> l.revoked(leadership, reason));
    }

    @Override
    public Optional<Leadership> leadership() {
        HeldLeadership mine = current;
        return mine != null && mine.isValid() ? Optional.of(mine) : Optional.empty();
    }

    @Override
    public boolean resign() {
        HeldLeadership mine = current;
        return mine != null && mine.resign();
    }

    @Override
    public Optional<Leader> leader() {
        try {
            Optional<Leader> leader = parseLeader(node.await(node.eval(LEADER, List.of(key, detailsKey), List.of()),
                    node.commandTimeout())).map(r -> r.leader);
            leader.ifPresent(this::observed);
            return leader;
        } catch (CoordisException e) {
            throw named(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordisException(node.address(), "interrupted while reading the leader of '" + key + "'", e);
        }
    }

    /** A leader as {@code leader.lua} reports it, with its raw PTTL. */
    record Reading(Leader leader, long pttlMillis) {
    }

    Optional<Reading> parseLeader(Object reply) {
        List<?> r = Replies.list(reply, 1, LEADER, node.address());
        if (r.get(0) == null) {
            return Optional.empty();
        }
        Replies.list(r, 3, LEADER, node.address());
        String leaderId = Replies.string(r, 0, LEADER, node.address());
        long pttl = Replies.number(r, 1, LEADER, node.address());
        OptionalLong term = r.get(2) instanceof Long t ? OptionalLong.of(t) : OptionalLong.empty();
        return Optional.of(new Reading(new Leader(leaderId, term,
                pttl >= 0 ? Optional.of(Duration.ofMillis(pttl)) : Optional.empty()), pttl));
    }

    /** Reads the leader without blocking, for observers. */
    CompletableFuture<Optional<Reading>> readLeader() {
        return node.within(node.eval(LEADER, List.of(key, detailsKey), List.of()), node.commandTimeout())
                .thenApply(this::parseLeader);
    }

    /** Records an observed leader; {@code true} when its term regressed (reported loudly the first time). */
    boolean observed(Leader leader) {
        if (leader.term().isEmpty()) {
            return false;
        }
        long t = leader.term().getAsLong();
        TermHistory.Seen seen = terms.record(leader.id(), t);
        if (seen.regressed() && seen.firstReport()) {
            regression(seen.highestBefore(), t, "'" + leader.id() + "' leads with term " + t);
        }
        return seen.regressed();
    }

    @Override
    public long highestTermSeen() {
        return terms.highest();
    }

    @Override
    public AutoCloseable observe(Consumer<LeaderEvent> events) {
        checkOpen();
        LeaderWatch watch = new LeaderWatch(this, node, channel, events, options.ttl(), scheduler);
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
    public void addListener(ElectionListener listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener must not be null"));
    }

    @Override
    public void removeListener(ElectionListener listener) {
        listeners.remove(listener);
    }

    /** Calls every listener on the timer thread (or this thread once the client is closed). */
    private void dispatch(Consumer<ElectionListener> call) {
        Runnable all = () -> {
            for (ElectionListener l : listeners) {
                try {
                    call.accept(l);
                } catch (RuntimeException e) {
                    log.warn("an election listener of '{}' failed", name, e);
                }
            }
        };
        try {
            scheduler.execute(all);
        } catch (RejectedExecutionException e) {
            all.run();
        }
    }

    @Override
    public <T> Optional<T> whileLeader(Duration wait, LeaderTask<T> task) throws InterruptedException {
        java.util.Objects.requireNonNull(task, "task must not be null");
        Optional<Leadership> won = campaign(wait);
        if (won.isEmpty()) {
            return Optional.empty();
        }
        Leadership leadership = won.get();
        Thread worker = Thread.currentThread();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicBoolean lost = new AtomicBoolean();
        leadership.revoked().thenRun(() -> {
            synchronized (running) {
                if (running.get()) {
                    lost.set(true);
                    worker.interrupt();
                }
            }
        });
        T result;
        try {
            result = task.run(leadership);
        } catch (InterruptedException e) {
            if (stopped(running, lost)) {
                throw lostWhileRunning(leadership, e);
            }
            throw e;
        } finally {
            stopped(running, lost);
            if (lost.get()) {
                Thread.interrupted(); // our own interrupt, not the caller's
            }
            resignQuietly(leadership);
        }
        if (lost.get()) {
            throw lostWhileRunning(leadership, null);
        }
        return Optional.ofNullable(result);
    }

    private static boolean stopped(AtomicBoolean running, AtomicBoolean lost) {
        synchronized (running) {
            running.set(false);
            return lost.get();
        }
    }

    private LeadershipLostException lostWhileRunning(Leadership leadership, InterruptedException cause) {
        LeadershipLostException e = new LeadershipLostException(node.address(), "leadership of '" + name + "' (term "
                + leadership.term() + ") ended while the work was running; the work was interrupted", leadership.term());
        if (cause != null) {
            e.addSuppressed(cause);
        }
        return e;
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
