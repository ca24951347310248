package io.coordis.soak;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.TestClients;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.testkit.fault.FencedClient;
import io.coordis.testkit.history.History;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;

/**
 * Child-JVM main for {@link LockSoak}: one lease-election candidate under the nemesis. It records each
 * campaign in its history ({@code invoke campaign}, then {@code ok elected} with the term, {@code fail} when
 * it timed out, {@code info} when Redis failed it), and as leader enters the fenced resource with its term as
 * the token, writes every 20 ms while {@link Leadership#isHeld()} for a random 0.2-1.5 s, leaves and
 * resigns. Prints {@code READY} once started; when stdin closes, prints {@code STATS elections=N errors=N}
 * and exits.
 *
 * <p>Arguments: {@code redis-host:port election-name candidate-id ttl-ms history-file resource-host:port seed}
 */
public final class SoakCandidate {
    private SoakCandidate() {
    }

    public static void main(String[] args) throws Exception {
        String redis = args[0];
        String name = args[1];
        String id = args[2];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[3]));
        Random random = new Random(Long.parseLong(args[6]) ^ id.hashCode());
        Thread work = new Thread(() -> campaign(redis, name, id, ttl, Path.of(args[4]), args[5], random), "candidate");
        work.setDaemon(true);
        work.start();
        System.out.println("READY");
        while (System.in.read() >= 0) {
            // until the test closes stdin
        }
        work.interrupt();
        work.join(5000);
        System.out.println("STATS elections=" + elections + " errors=" + errors);
    }

    private static volatile long elections;
    private static volatile long errors;

    /** Connects as a supervised process would: again after a failure (Redis down, loading or slow at start). */
    private static Coordis connect(String redis) throws InterruptedException {
        while (true) {
            try {
                return TestClients.builder().url("redis://" + redis).commandTimeout(Duration.ofMillis(500)).connect();
            } catch (CoordisException e) {
                errors++;
                Thread.sleep(200);
            }
        }
    }

    private static void campaign(String redis, String name, String id, Duration ttl, Path historyFile, String resource,
                                 Random random) {
        try (Coordis coordis = connect(redis);
             History history = History.open(historyFile, id);
             FencedClient fenced = FencedClient.connect(resource, id)) {
            LeaderElection election = coordis.election(name, ElectionOptions.defaults().withCandidateId(id).withTtl(ttl));
            while (!Thread.currentThread().isInterrupted()) {
                history.invoke("campaign", name, id, -1);
                Optional<Leadership> won;
                try {
                    won = election.campaign(Duration.ofSeconds(2));
                } catch (CoordisException e) {
                    history.info("campaign", name, id, -1); // Redis failed the call: elected or not, unknown
                    errors++;
                    Thread.sleep(50);
                    continue;
                }
                if (won.isEmpty()) {
                    history.fail("campaign", name, id, -1);
                    continue;
                }
                Leadership l = won.get();
                history.ok("elected", name, id, l.term());
                elections++;
                lead(l, fenced, random);
                try {
                    l.resign();
                } catch (CoordisException e) {
                    errors++; // its lease expires on its own
                }
                Thread.sleep(20 + random.nextInt(50)); // give the others a chance
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void lead(Leadership l, FencedClient fenced, Random random) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofMillis(200 + random.nextInt(1300)).toNanos();
        fenced.enter(l.term());
        try {
            while (l.isHeld() && System.nanoTime() < until) {
                fenced.write(l.term());
                Thread.sleep(20);
            }
        } finally {
            // leave before resigning, also when stopped mid-way, so the resource does not see it inside forever
            fenced.exit(l.term());
        }
    }
}
