package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.Outcome;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The demo's tour of every primitive against one Redis, on objects named {@code demo:*}: locks with fencing
 * numbers, a leader that dies and a successor with a higher term, a broadcast and a unicast signal, a
 * reliable queue whose consumer dies mid-message and a poison message that ends in the dead letters; then
 * the {@code ls} tables. Narration goes to {@code say}, the tables to {@code out}. Each step checks what it
 * shows and fails with {@link CommandFailure} (exit 70) if Redis or Coordis did not behave as narrated.
 *
 * <p>"Dies" here means a client that stops without a goodbye: its {@link Coordis} is closed without resigning
 * or closing its consumer, so its lease or heartbeat simply stops being renewed — what Redis sees after a
 * {@code kill -9}.
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
    private Coordis main;

    DemoTour(String url, PrintStream say) {
        this.url = url;
        this.say = say;
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

    /** Runs every part after the lock contest and returns the ls tables of the demo's objects. */
    List<String> run() throws InterruptedException {
        main = client();
        election();
        signals();
        queue();
        return tables();
    }

    private void election() throws InterruptedException {
        step("Leader election: one leader per term; a dead leader is replaced by one with a higher term");
        Coordis alphaClient = client();
        Coordis betaClient = client();
        ElectionOptions options = ElectionOptions.defaults().withTtl(LEASE);
        LeaderElection alpha = alphaClient.election(LEADER, options.withCandidateId("alpha"));
        LeaderElection beta = betaClient.election(LEADER, options.withCandidateId("beta"));
        Leadership first = alpha.campaign(Duration.ofSeconds(5))
                .orElseThrow(() -> broken("alpha was not elected leader of an empty election"));
        say.printf("alpha is leader of %s with term %d (lease %d s, renewed every %d ms)%n", LEADER, first.term(),
                LEASE.toSeconds(), LEASE.toMillis() / 3);
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
        say.println("beta campaigns too, and waits: alpha keeps renewing its lease");
        long died = System.nanoTime();
        alphaClient.close(); // no resign: what Redis sees when alpha's process is killed
        say.println("alpha dies without resigning (its client stops, as after kill -9); its lease runs out");
        Leadership next;
        try {
            next = waiting.get(20, TimeUnit.SECONDS).orElseThrow(() -> broken("beta was not elected after alpha died"));
        } catch (ExecutionException | TimeoutException e) {
            throw broken("beta's campaign did not end: " + e);
        }
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - died);
        if (next.term() <= first.term()) {
            throw broken("the new term " + next.term() + " is not higher than " + first.term());
        }
        say.printf("beta is leader with term %d (> %d), %d ms after alpha died; work fenced with the term refuses "
                + "anything alpha might still send%n", next.term(), first.term(), took);
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

        Coordis doomedClient = client();
        Consumer doomed = doomedClient.reliableQueue(JOBS, options).consumer();
        Delivery held = doomed.take(Duration.ofSeconds(5)).orElseThrow(() -> broken("the first consumer got nothing"));
        say.printf("consumer A took '%s' (delivery %s) and dies before acking it (heartbeat TTL %d ms)%n",
                held.text(), held.id(), HEARTBEAT.toMillis());
        long died = System.nanoTime();
        doomedClient.close(); // no ack, no close of the consumer: its heartbeat just stops
        String lost = held.text();

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
                if (d.text().startsWith("poison")) {
                    Outcome o = d.nack();
                    say.printf("consumer B fails on '%s' (attempt %d of %d): %s%n", d.text(), d.attempts(),
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
                    say.printf("consumer B got '%s' back %d ms after A died (attempt %d) and acked it%n", d.text(),
                            TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - died), d.attempts());
                } else {
                    say.printf("consumer B acked '%s' (attempt %d)%n", d.text(), d.attempts());
                }
            }
        }
        say.printf("%s: nothing lost, 1 message in %s:dead for a person to look at ('coordis queue requeue %s --dead')%n",
                JOBS, "{" + JOBS + "}", JOBS);
    }

    private List<String> tables() throws InterruptedException {
        step("What an operator sees: coordis ls --match 'demo:*' (a lock is held for the picture)");
        try (Lease lease = main.lock(PrinterContest.LOCK, LockOptions.defaults().withTtl(Duration.ofSeconds(30)))
                .tryAcquire().orElseThrow(() -> broken(PrinterContest.LOCK + " is held by someone else"))) {
            return LsCommand.render(main.inspector(), List.of(ObjectKind.values()), "demo:*", false, Instant.now());
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
    }
}
