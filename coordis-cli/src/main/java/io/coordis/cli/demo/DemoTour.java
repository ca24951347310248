package io.coordis.cli.demo;

import io.coordis.Coordis;
import io.coordis.Outcome;
import io.coordis.cli.support.CommandFailure;
import io.coordis.cli.support.ExitCodes;
import io.coordis.cli.view.Listing;
import io.coordis.election.ElectionOptions;
import io.coordis.election.Leader;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.inspect.ObjectKind;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Signal;
import io.coordis.signal.Waiter;

import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * The demo's tour of every primitive against one Redis, on objects named {@code demo:*}: locks with fencing
 * numbers, a leader that dies and a successor with a higher term, a broadcast and a unicast signal, a
 * reliable queue whose consumer dies mid-message and a poison message that ends in the dead letters; then
 * the {@code ls} tables. Narration goes to {@code say}; the tables are returned. Each step checks what it
 * shows and fails with {@link CommandFailure} (exit 70) if Redis or Coordis did not behave as narrated.
 *
 * <p>The two that die are real processes killed with SIGKILL: the leader 'alpha' is {@code coordis elect} and
 * consumer A is {@code coordis queue work}, each in a JVM of its own ({@link DemoChild}), killed together with
 * the command it runs. Nothing resigns or acks for them: the lease and the heartbeat simply stop being renewed
 * and run out by their TTL, and the narration shows what the survivors then see.
 */
final class DemoTour implements AutoCloseable {
    static final String LEADER = "demo:leader";
    static final String DEPLOY = "demo:deploy";
    static final String WORK = "demo:work";
    static final String BUILD = "demo:build";
    static final String JOBS = "demo:jobs";
    private static final Duration LEASE = Duration.ofSeconds(2);
    private static final Duration HEARTBEAT = Duration.ofSeconds(1);

    private final String url;
    private final PrintStream say;
    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<DemoChild> children = new CopyOnWriteArrayList<>();
    private final Thread killChildren = new Thread(() -> children.forEach(DemoChild::kill), "coordis-demo-children");
    private Coordis main;

    DemoTour(String url, PrintStream say) {
        this.url = url;
        this.say = say;
        Runtime.getRuntime().addShutdownHook(killChildren); // Ctrl-C or SIGTERM mid-tour leaves no process behind
    }

    private Coordis client() {
        Coordis c = Coordis.connect(url);
        open.add(0, c);
        return c;
    }

    private void step(String title) {
        say.println();
        say.println("== " + title);
    }

    private static CommandFailure broken(String what) {
        return new CommandFailure(ExitCodes.SOFTWARE, "demo: " + what);
    }

    /**
     * Runs every part after the lock contest and returns the ls tables of the demo's objects: text lines, or
     * with {@code json} one JSON document per table, as {@code ls -o json} prints them.
     */
    List<String> run(boolean json) throws InterruptedException {
        main = client();
        election();
        signals();
        queue();
        return tables(json);
    }

    private void election() throws InterruptedException {
        step("Leader election: one leader per term; a killed leader is replaced by one with a higher term");
        String[] alphaArgs = {"elect", LEADER, "--id", "alpha", "--ttl", LEASE.toSeconds() + "s", "--", "sleep", "30"};
        DemoChild alphaProcess = child("alpha", alphaArgs);
        say.printf("started alpha as a process of its own (pid %d): %s%n", alphaProcess.pid(), shown(alphaArgs));
        LeaderElection beta = client().election(LEADER, ElectionOptions.defaults().withTtl(LEASE)
                .withCandidateId("beta"));
        Leader first = awaitLeader(beta, "alpha", alphaProcess);
        long firstTerm = first.term().orElseThrow(() -> broken("alpha leads without a term"));
        say.printf("alpha is leader of %s with term %d (lease %d s, renewed every %d ms while its process lives)%n",
                LEADER, firstTerm, LEASE.toSeconds(), LEASE.toMillis() / 3);
        CompletableFuture<Optional<Leadership>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return beta.campaign(Duration.ofSeconds(15));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        });
        Thread.sleep(700);
        if (waiting.isDone()) {
            throw broken("beta became leader while alpha was alive and renewing");
        }
        say.println("beta campaigns too, and waits: alpha's process keeps renewing its lease");
        long died = System.nanoTime();
        List<Long> command = alphaProcess.kill();
        say.printf("kill -9 %d: alpha's process dies without resigning (its command 'sleep 30', pid %s, is killed "
                + "too); its lease runs out within %d s%n", alphaProcess.pid(), pids(command), LEASE.toSeconds());
        Leadership next;
        try {
            next = waiting.get(20, TimeUnit.SECONDS).orElseThrow(() -> broken("beta was not elected after alpha died"));
        } catch (ExecutionException | TimeoutException e) {
            throw broken("beta's campaign did not end: " + e);
        }
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - died);
        if (next.term() <= firstTerm) {
            throw broken("the new term " + next.term() + " is not higher than " + firstTerm);
        }
        say.printf("beta is leader with term %d (> %d), %d ms after alpha was killed; work fenced with the term "
                + "refuses anything alpha might still send%n", next.term(), firstTerm, took);
    }

    /** Waits (up to 20 s: a JVM has to start) until {@code id} leads, and answers that leader. */
    private static Leader awaitLeader(LeaderElection election, String id, DemoChild candidate)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            Optional<Leader> leader = election.leader();
            if (leader.isPresent() && leader.get().id().equals(id)) {
                return leader.get();
            }
            if (!candidate.isAlive()) {
                throw broken(id + "'s process (pid " + candidate.pid() + ") exited before it was elected");
            }
            if (System.nanoTime() > deadline) {
                throw broken(id + " was not elected within 20 s" + leader.map(l -> "; " + l.describe()).orElse(""));
            }
            Thread.sleep(50);
        }
    }

    private DemoChild child(String name, String... args) {
        DemoChild c = DemoChild.start(name, url, say, args);
        children.add(c);
        open.add(0, c);
        return c;
    }

    /** {@code coordis ARGS...} as a person would type it (arguments with spaces or quotes in single quotes). */
    private static String shown(String... args) {
        StringBuilder line = new StringBuilder("coordis");
        for (String a : args) {
            line.append(' ').append(a.matches("[A-Za-z0-9:._/=-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return line.toString();
    }

    private static String pids(List<Long> pids) {
        return pids.isEmpty() ? "none" : pids.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }

    private void signals() throws InterruptedException {
        step("Signals: a broadcast wakes every waiter, a unicast exactly one");
        List<Waiter> everyone = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            everyone.add(main.signals().waiter(DEPLOY));
        }
        long receivers = main.signals().signal(DEPLOY, "v42");
        int woke = 0;
        for (Waiter w : everyone) {
            Optional<Signal> s = w.await(Duration.ofSeconds(5));
            if (s.isPresent() && s.get().data().equals("v42")) {
                woke++;
            }
            w.close();
        }
        if (woke != 3) {
            throw broken("broadcast woke " + woke + " of 3 waiters");
        }
        say.printf("signal %s v42: 3 of 3 waiters woke (Redis counted %d receiving connection%s: waiters of one client "
                + "share one)%n", DEPLOY, receivers, receivers == 1 ? "" : "s");

        List<Waiter> workers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            workers.add(main.signals().unicastWaiter(WORK));
        }
        long delivered = main.signals().signalOne(WORK, "job-7");
        Thread.sleep(300); // give a second copy, if there were one, time to arrive
        List<Integer> got = new ArrayList<>();
        for (int i = 0; i < workers.size(); i++) {
            if (workers.get(i).poll().isPresent()) {
                got.add(i + 1);
            }
            workers.get(i).close();
        }
        if (delivered != 1 || got.size() != 1) {
            throw broken("unicast reached " + got.size() + " waiters (Redis counted " + delivered + ")");
        }
        say.printf("signal --one %s job-7: exactly one of 3 waiters woke (waiter %d)%n", WORK, got.get(0));
        main.signals().event(BUILD, Duration.ofMinutes(10)).signal("green");
        say.printf("signal --latch 10m %s green: recorded, so a waiter that comes later still sees it%n", BUILD);
    }

    private void queue() throws InterruptedException {
        step("Reliable queue: a consumer dies mid-message and the message comes back; a poison message is dead-lettered");
        QueueOptions options = QueueOptions.defaults().withHeartbeatTtl(HEARTBEAT).withSweepInterval(Duration.ofMillis(250))
                .withMaxAttempts(3);
        ReliableQueue queue = main.reliableQueue(JOBS, options);
        queue.push("resize photo-1");
        queue.push("resize photo-2");
        queue.push("poison: corrupt.png");
        say.printf("pushed 3 messages to %s (a plain Redis list: LPUSH from any client works)%n", JOBS);

        String[] workArgs = {"queue", "work", JOBS, "--heartbeat", HEARTBEAT.toMillis() + "ms", "--max-attempts",
                Integer.toString(options.maxAttempts()), "--", "sh", "-c",
                "read -r job; echo \"$COORDIS_DELIVERY_ID $job\"; exec sleep 30"};
        DemoChild doomed = child("A", workArgs);
        say.printf("started consumer A as a process of its own (pid %d): %s%n", doomed.pid(), shown(workArgs));
        String[] took = doomed.awaitLine(Duration.ofSeconds(20)).split(" ", 2);
        if (took.length != 2) {
            throw broken("consumer A's command printed '" + String.join(" ", took) + "', not 'ID MESSAGE'");
        }
        say.printf("consumer A took '%s' (delivery %s) and runs its command, which never finishes%n", took[1], took[0]);
        long died = System.nanoTime();
        List<Long> command = doomed.kill();
        say.printf("kill -9 %d: consumer A dies before acking (its command, pid %s, is killed too); its heartbeat "
                + "(TTL %d ms) stops%n", doomed.pid(), pids(command), HEARTBEAT.toMillis());
        String lost = took[1];

        boolean recovered = false;
        boolean dead = false;
        int acked = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        try (Consumer survivor = queue.consumer()) {
            while (!(recovered && dead && acked == 2)) {
                if (System.nanoTime() > deadline) {
                    throw broken("the queue did not settle: recovered=" + recovered + " dead-lettered=" + dead
                            + " acked=" + acked);
                }
                Optional<Delivery> next = survivor.take(Duration.ofSeconds(1));
                if (next.isEmpty()) {
                    continue;
                }
                Delivery d = next.get();
                // Read before settling: settling changes the count (a nack adds one, an ack or dead letter clears it).
                int attempt = d.attempts();
                if (d.text().startsWith("poison")) {
                    Outcome o = d.nack();
                    say.printf("consumer B fails on '%s' (attempt %d of %d): %s%n", d.text(), attempt,
                            options.maxAttempts(), o == Outcome.DEAD_LETTERED ? "dead-lettered" : "put back for a retry");
                    dead |= o == Outcome.DEAD_LETTERED;
                    continue;
                }
                if (d.ack() != Outcome.ACKED) {
                    throw broken("ack of " + d.id() + " was not taken");
                }
                acked++;
                if (d.text().equals(lost)) {
                    recovered = true;
                    say.printf("consumer B got '%s' back %d ms after A was killed (attempt %d) and acked it%n", d.text(),
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - died), attempt);
                } else {
                    say.printf("consumer B acked '%s' (attempt %d)%n", d.text(), attempt);
                }
            }
        }
        say.printf("%s: nothing lost, 1 message in %s:dead for a person to look at ('coordis queue requeue %s --dead')%n",
                JOBS, "{" + JOBS + "}", JOBS);
    }

    private List<String> tables(boolean json) throws InterruptedException {
        step("What an operator sees: coordis ls --match 'demo:*' (a lock is held for the picture)");
        try (Lease lease = main.lock(PrinterContest.LOCK, LockOptions.defaults().withTtl(Duration.ofSeconds(30)))
                .tryAcquire().orElseThrow(() -> broken(PrinterContest.LOCK + " is held by someone else"))) {
            return Listing.render(main.inspector(), List.of(ObjectKind.values()), "demo:*", json, Instant.now());
        }
    }

    /** Stops every client the tour opened (resigning nothing: leases run out by their TTL). */
    @Override
    public void close() {
        for (AutoCloseable c : open) {
            try {
                c.close();
            } catch (Exception e) {
                // best effort at the end of a demo
            }
        }
        open.clear();
        try {
            Runtime.getRuntime().removeShutdownHook(killChildren);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }
}
