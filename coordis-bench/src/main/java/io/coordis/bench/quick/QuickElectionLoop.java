package io.coordis.bench.quick;

import io.coordis.Coordis;
import io.coordis.election.CounterElection;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.coordis.testkit.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;

/**
 * Quick loops for elections, each against the nearest raw Lettuce equivalent, interleaved in one run on
 * one redis-server. Not a benchmark suite: first ratios.
 * <ul>
 *   <li>campaign + resign (uncontended) vs SET NX PX, INCR of a term counter, compare-and-delete script;</li>
 *   <li>counter round vs the classic INCR + EXPIRE;</li>
 *   <li>leader() vs GET + PTTL.</li>
 * </ul>
 * Run with {@code coordis-bench/run quick QuickElectionLoop [ops] [rounds]}.
 */
public final class QuickElectionLoop {
    private static final String DELETE_IF_OURS =
            "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

    public static void main(String[] args) throws Exception {
        int ops = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        try (RedisServer server = RedisServer.start();
             Coordis coordis = Coordis.connect(server.uri())) {
            RedisClient client = RedisClient.create(server.uri());
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisCommands<String, String> raw = conn.sync();
                String sha = raw.scriptLoad(DELETE_IF_OURS);
                LeaderElection election = coordis.election("quick:election",
                        ElectionOptions.defaults().withCandidateId("quick"));
                CounterElection counter = coordis.counterElection("quick:counter", Duration.ofSeconds(20));
                Runnable campaignCycle = () -> {
                    try {
                        election.campaign(Duration.ZERO).orElseThrow().resign();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                };
                String rawKey = "quick:raw";
                String rawTerm = "{quick:raw}:term";
                Runnable rawCampaignCycle = () -> {
                    if (!"OK".equals(raw.set(rawKey, "quick", SetArgs.Builder.nx().px(15_000)))) {
                        throw new IllegalStateException("raw election busy");
                    }
                    raw.incr(rawTerm);
                    raw.evalsha(sha, ScriptOutputType.INTEGER, new String[]{rawKey}, "quick");
                };
                Runnable round = () -> {
                    try {
                        counter.round();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                };
                String rawCounter = "quick:rawcounter";
                Runnable rawRound = () -> {
                    raw.incr(rawCounter);
                    raw.expire(rawCounter, 20);
                };
                election.campaign(Duration.ZERO).orElseThrow(); // stays leader for the leader() loop below
                Runnable leader = () -> election.leader().orElseThrow();
                String electionKey = "quick:election";
                Runnable rawLeader = () -> {
                    raw.get(electionKey);
                    raw.pttl(electionKey);
                };
                System.out.printf("redis %s, %d ops per round, %d rounds, interleaved%n", server.version(), ops, rounds);
                compare("leader()", leader, rawLeader, ops, rounds);
                election.resign();
                compare("campaign + resign", campaignCycle, rawCampaignCycle, ops, rounds);
                compare("counter round", round, rawRound, ops, rounds);
            } finally {
                client.shutdown();
            }
        }
    }

    private static void compare(String what, Runnable coordisCycle, Runnable rawCycle, int ops, int rounds) {
        run(coordisCycle, ops / 4);
        run(rawCycle, ops / 4);
        double[] ratios = new double[rounds];
        double cSum = 0;
        double wSum = 0;
        for (int r = 0; r < rounds; r++) {
            double c;
            double w;
            if (r % 2 == 0) {
                c = run(coordisCycle, ops);
                w = run(rawCycle, ops);
            } else {
                w = run(rawCycle, ops);
                c = run(coordisCycle, ops);
            }
            cSum += c;
            wSum += w;
            ratios[r] = c / w;
        }
        java.util.Arrays.sort(ratios);
        System.out.printf("%s: coordis %.0f ops/s, raw lettuce %.0f ops/s; median ratio %.2f (min %.2f, max %.2f)%n",
                what, cSum / rounds, wSum / rounds, ratios[rounds / 2], ratios[0], ratios[rounds - 1]);
    }

    private static double run(Runnable cycle, int ops) {
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            cycle.run();
        }
        return ops / ((System.nanoTime() - start) / 1e9);
    }
}
