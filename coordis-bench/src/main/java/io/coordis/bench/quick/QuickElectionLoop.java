package io.coordis.bench.quick;

import io.coordis.election.CounterElection;
import io.coordis.election.ElectionOptions;
import io.coordis.election.LeaderElection;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
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
    public static void main(String[] args) throws Exception {
        int ops = QuickRun.arg(args, 0, 10_000);
        int rounds = QuickRun.arg(args, 1, 5);
        try (QuickRun quick = QuickRun.start()) {
            String sha = quick.raw.scriptLoad(RawLock.DELETE_IF_OURS);
            LeaderElection election = quick.coordis.election("quick:election",
                    ElectionOptions.defaults().withCandidateId("quick"));
            CounterElection counter = quick.coordis.counterElection("quick:counter", Duration.ofSeconds(20));
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
                if (!"OK".equals(quick.raw.set(rawKey, "quick", SetArgs.Builder.nx().px(15_000)))) {
                    throw new IllegalStateException("raw election busy");
                }
                quick.raw.incr(rawTerm);
                quick.raw.evalsha(sha, ScriptOutputType.INTEGER, new String[]{rawKey}, "quick");
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
                quick.raw.incr(rawCounter);
                quick.raw.expire(rawCounter, 20);
            };
            election.campaign(Duration.ZERO).orElseThrow(); // stays leader for the leader() loop below
            Runnable leader = () -> election.leader().orElseThrow();
            String electionKey = "quick:election";
            Runnable rawLeader = () -> {
                quick.raw.get(electionKey);
                quick.raw.pttl(electionKey);
            };
            System.out.printf("redis %s, %d ops per round, %d rounds, interleaved%n", quick.server.version(), ops, rounds);
            compare("leader()", leader, rawLeader, ops, rounds);
            election.resign();
            compare("campaign + resign", campaignCycle, rawCampaignCycle, ops, rounds);
            compare("counter round", round, rawRound, ops, rounds);
        }
    }

    private static void compare(String what, Runnable coordisCycle, Runnable rawCycle, int ops, int rounds) {
        Interleaved.rate(coordisCycle, ops / 4);
        Interleaved.rate(rawCycle, ops / 4);
        double[] ratios = new double[rounds];
        double cSum = 0;
        double wSum = 0;
        for (int r = 0; r < rounds; r++) {
            double[] rates = Interleaved.round(r, ops, coordisCycle, rawCycle);
            cSum += rates[0];
            wSum += rates[1];
            ratios[r] = rates[0] / rates[1];
        }
        System.out.printf("%s: coordis %.0f ops/s, raw lettuce %.0f ops/s; median ratio %s%n",
                what, cSum / rounds, wSum / rounds, Interleaved.spread(ratios));
    }
}
