package io.coordis.election;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.fault.FencedClient;
import io.coordis.testkit.history.History;

import java.net.URI;
import java.time.Duration;

/**
 * Child-JVM main: one election candidate that reports to a {@link io.coordis.testkit.fault.FencedResource} and
 * prints what it
 * believes on stdout ({@code CAMPAIGNING}, {@code ELECTED term=T}, {@code REVOKED term=T},
 * {@code ROUND leader=B remembered=V}). Exits when stdin closes.
 *
 * <p>Arguments: {@code <mode> <resource host:port> <redis uri> <name> <id> <ttl ms> [history file]}, mode one of:
 * <ul>
 *   <li>{@code lease} — the lease election: campaign; once elected, ENTER the resource with its term and write to
 *       it every 20 ms while {@link Leadership#isHeld()}; when it turns false EXIT (before anything else) and
 *       campaign again. With a history file it records there, for {@code LeaderChecker},
 *       {@code invoke campaign} before each campaign, {@code ok elected} (term) as soon as it returns, before
 *       reporting, and {@code info revoked} (term).</li>
 *   <li>{@code counter} — Coordis's counter election, one round every ttl/10; after each round act (ENTER and EXIT the
 *       resource, with no fencing token: 0) if {@link CounterElection#isLeader()}.</li>
 *   <li>{@code seed} — the classic {@code master()} function emulated command for command (INCR, then
 *       EXPIRE key term while leading) without the local term check; act after each round it won.</li>
 * </ul>
 */
public final class CandidateProcess {
    private CandidateProcess() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String resource = args[1];
        String uri = args[2];
        String name = args[3];
        String id = args[4];
        Duration ttl = Duration.ofMillis(Long.parseLong(args[5]));
        History history = args.length > 6 ? History.open(java.nio.file.Path.of(args[6]), id) : null;
        Thread stdinWatch = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // ignore input; exit when it closes
                }
            } catch (java.io.IOException ignored) {
                // exit
            }
            Runtime.getRuntime().halt(0);
        }, "stdin-watch");
        stdinWatch.setDaemon(true);
        stdinWatch.start();
        try (FencedClient referee = FencedClient.connect(resource, id)) {
            switch (mode) {
                case "lease" -> lease(referee, uri, name, id, ttl, history);
                case "counter" -> counter(referee, uri, name, ttl);
                case "seed" -> seed(referee, uri, Prefixed.key(name), ttl);
                default -> throw new IllegalArgumentException("unknown mode " + mode);
            }
        }
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void lease(FencedClient referee, String uri, String name, String id, Duration ttl, History history)
            throws InterruptedException {
        try (Coordis coordis = TestClients.connect(uri)) {
            LeaderElection election = coordis.election(name,
                    ElectionOptions.defaults().withCandidateId(id).withTtl(ttl));
            while (true) {
                say("CAMPAIGNING");
                record(history, "invoke", "campaign", name, id, -1);
                Leadership l = election.campaign();
                record(history, "ok", "elected", name, id, l.term());
                referee.enter(l.term());
                say("ELECTED term=" + l.term());
                while (l.isHeld()) {
                    if (!referee.write(l.term())) {
                        say("WRITE_REJECTED term=" + l.term());
                    }
                    Thread.sleep(20);
                }
                referee.exit(l.term());
                record(history, "info", "revoked", name, id, l.term());
                say("REVOKED term=" + l.term());
            }
        }
    }

    /** Work done as leader, with no fencing token: what an unfenced resource sees. */
    private static void act(FencedClient referee) {
        referee.enter(0);
        referee.exit(0);
    }

    private static void record(History history, String type, String f, String name, String id, long term) {
        if (history != null) {
            history.record(type, f, name, id, term);
        }
    }

    private static void counter(FencedClient referee, String uri, String key, Duration term) throws InterruptedException {
        try (Coordis coordis = TestClients.connect(uri)) {
            CounterElection election = coordis.counterElection(key, term);
            while (true) {
                boolean won = election.round();
                say("ROUND leader=" + won + " remembered=" + election.remembered());
                if (election.isLeader()) {
                    act(referee);
                }
                Thread.sleep(term.toMillis() / 10);
            }
        }
    }

    /** The classic master() function, line for line, on a raw RESP connection. */
    private static void seed(FencedClient referee, String uri, String key, Duration term) throws InterruptedException {
        URI u = URI.create(uri);
        try (RespClient rc = RespClient.connect(u.getHost(), u.getPort())) {
            long localSelector = 0;
            while (true) {
                long masterSelector = (Long) rc.command("INCR", key);
                if (masterSelector == 1) {
                    localSelector = masterSelector;
                } else if (localSelector > 0) {
                    if (localSelector > masterSelector) {
                        localSelector = 0;
                    } else {
                        localSelector = masterSelector;
                    }
                }
                if (localSelector > 0) {
                    rc.command("EXPIRE", key, Long.toString(term.toSeconds()));
                }
                boolean master = localSelector > 0;
                say("ROUND leader=" + master + " remembered=" + localSelector);
                if (master) {
                    act(referee);
                }
                Thread.sleep(term.toMillis() / 10);
            }
        }
    }
}
