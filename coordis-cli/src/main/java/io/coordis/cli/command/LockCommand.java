package io.coordis.cli.command;

import io.coordis.Coordis;
import io.coordis.DurationText;
import io.coordis.cli.run.Claim;
import io.coordis.cli.run.HeldRun;
import io.coordis.cli.run.HeldRunOptions;
import io.coordis.cli.support.Terminal;
import io.coordis.cli.support.VersionProvider;
import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockHolder;
import io.coordis.lock.LockOptions;
import io.coordis.lock.MultiLease;
import io.coordis.lock.MultiLock;
import io.coordis.NodeVote;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code coordis lock NAME -- CMD...}: runs CMD while holding the lock NAME, like {@code flock(1)} and
 * {@code etcdctl lock}. The lease renews itself while CMD runs; if it is lost anyway, CMD is stopped and
 * the exit status is 75. Otherwise the exit status is CMD's. With three or more URLs the lock is a
 * Redlock lock over those independent masters. With {@code --shared} it is a read hold of the read-write lock NAME,
 * beside other read holds; without it, on a name used as a read-write lock, the write hold (the same plain lock).
 * With {@code --fair} waiting clients get the lock in the order they came.
 */
@Command(name = "lock", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {"Run CMD while holding the lock NAME; the lock renews itself while CMD runs.",
                "CMD sees COORDIS_LOCK_NAME and COORDIS_LOCK_TOKEN (the fencing number) in its environment.",
                "Several NAMEs take a multi-lock: all of them or none, under one lease; CMD then sees "
                        + "COORDIS_LOCK_TOKENS, each name's fencing number as name=N, separated by spaces."},
        customSynopsis = {"coordis [-u URL] lock [--shared | --fair] [--ttl D] [-w D | -n] [-E N] [--grace D] [-q] NAME [NAME...] -- CMD [ARG...]",
                "coordis -u URL1 -u URL2 -u URL3... lock [--node-timeout D] [--no-restart-guard] [options] NAME -- CMD [ARG...]"},
        footer = {"", "Durations: 500ms, 30s, 1.5s, 5m, 1h.",
                "Redlock: with 3 or more URLs of independent masters (5 is typical; --url repeated, or a "
                        + "comma-separated list in --url or COORDIS_URL) the lock is held when a majority of the "
                        + "nodes grant it. 2 URLs are refused.",
                "Multi-lock: with several NAMEs, each is an ordinary lock (other clients see every name held); "
                        + "none is taken while any is busy, so two commands naming the same locks in any order never "
                        + "deadlock. One URL only (a Sentinel or Cluster URL too); not with --shared.",
                "Read-write lock: with --shared, CMD runs beside other --shared holders of NAME (readers), never "
                        + "beside a holder without it (the writer, or any other client locking NAME); a waiting writer "
                        + "goes before readers that come after it. One URL only.",
                "Fair lock: with --fair, waiting clients get the lock in the order they came, across processes; "
                        + "a waiter that died loses its place within seconds. One URL only.",
                "Exit status: CMD's; 1 (or -E) when the lock was not acquired; 75 when the lock was lost and "
                        + "CMD was stopped; 64 usage; 69 Redis unavailable (Redlock: too few nodes could vote); "
                        + "77 credentials refused; "
                        + "126/127 CMD cannot be run / not found."})
public final class LockCommand implements Callable<Integer> {
    static final Duration MAX_DEFAULT_NODE_TIMEOUT = Duration.ofMillis(500);

    @Parameters(index = "0", paramLabel = "NAME", description = "The lock's name (the Redis key); several names "
            + "before -- take them all at once.")
    String name;

    @Parameters(index = "1..*", paramLabel = "CMD", description = "The command to run and its arguments, after --.")
    List<String> command = new ArrayList<>();

    /** The names after the first, before {@code --}: a multi-lock when there are any. */
    private List<String> moreNames = List.of();

    @Option(names = "--shared",
            description = "Take a shared (read) hold: run beside other --shared holders, never beside an exclusive one.")
    boolean shared;

    @Option(names = "--fair",
            description = "Wait in line: the lock goes to waiting clients in the order they came, across processes.")
    boolean fair;

    @Option(names = "--node-timeout", paramLabel = "D",
            description = "Redlock only: how long one node may take to answer one step (acquire, renew, release). "
                    + "Default: a tenth of the TTL, at most 500ms: the first request to each node also opens the "
                    + "connection to it.")
    Duration nodeTimeout;

    @Option(names = "--no-restart-guard",
            description = {"Redlock only: count the vote of a node that has been up for less than the TTL + 1s. "
                    + "By default such a node may not vote, since a node that restarted without persistence may "
                    + "have forgotten a lock it granted, and could grant it twice.",
                    "Appropriate only when every node runs with appendonly yes and appendfsync always "
                            + "(or for throwaway test servers)."})
    boolean noRestartGuard;

    @Mixin
    HeldRunOptions held = new HeldRunOptions();

    @Spec
    CommandSpec spec;

    private final Terminal terminal;

    public LockCommand(Terminal terminal) {
        this.terminal = terminal;
    }

    @Override
    public Integer call() throws InterruptedException {
        splitNames();
        LockOptions options = checkArguments();
        List<String> nodes = held.urls().all();
        if (!moreNames.isEmpty()) {
            List<String> names = new ArrayList<>(List.of(name));
            names.addAll(moreNames);
            return HeldRun.run(spec, nodes, held, terminal, command, (coordis, left) ->
                    acquireAll(coordis, names, options, left).map(Claim::of)
                            .map(claim -> new HeldRun.Acquired(claim, "acquired " + claim.describe())));
        }
        return HeldRun.run(spec, nodes, held, terminal, command, (coordis, left) -> {
            DistributedLock exclusive = coordis.lock(name, options);
            return acquire(shared ? coordis.readWriteLock(name, options).readLock() : exclusive, exclusive, left)
                    .map(lease -> new HeldRun.Acquired(Claim.of(lease), "acquired "
                            + (shared ? "a shared hold of '" : "'") + name + "' (token " + lease.fencingToken() + ")"
                            + where(lease, nodes.size())));
        });
    }

    /** Moves the names picocli read into CMD, the arguments before {@code --}, to {@link #moreNames}. */
    private void splitNames() {
        List<String> args = spec.commandLine().getParseResult().originalArgs();
        int separator = args.indexOf("--");
        int after = separator < 0 ? 0 : args.size() - separator - 1;
        if (separator >= 0 && command.size() > after) {
            moreNames = List.copyOf(command.subList(0, command.size() - after));
            command = new ArrayList<>(command.subList(command.size() - after, command.size()));
        }
    }

    /** Checks what picocli cannot, before anything touches Redis. */
    private LockOptions checkArguments() {
        if (name.isBlank()) {
            throw usage("lock name must not be blank: name the resource to lock, e.g. orders:42");
        }
        HeldRun.check(spec, "coordis lock " + name, command, held);
        if (!moreNames.isEmpty() && shared) {
            throw usage("--shared takes a read hold of one NAME; give one name, or leave out --shared to take "
                    + "several names at once");
        }
        if (!moreNames.isEmpty() && held.urls().all().size() > 1) {
            throw usage("several NAMEs take a multi-lock on one Redis (a Sentinel or Cluster URL too); give one URL, "
                    + "or lock one name at a time over the Redlock masters");
        }
        if (shared && held.urls().all().size() > 1) {
            throw usage("--shared takes a read hold on one Redis node; give one URL (read-write locks do not run "
                    + "over Redlock masters)");
        }
        if (fair && !moreNames.isEmpty()) {
            throw usage("--fair lines up waiters for one NAME; give one name, or leave out --fair to take several "
                    + "names at once");
        }
        if (fair && shared) {
            throw usage("--fair and --shared do not go together: a shared hold is not fair; drop one of them");
        }
        if (fair && held.urls().all().size() > 1) {
            throw usage("--fair lines up waiters on one Redis node; give one URL (a fair lock does not run over "
                    + "Redlock masters)");
        }
        LockOptions options;
        try {
            options = LockOptions.defaults().withTtl(held.ttl()).withRestartGuard(!noRestartGuard).withFair(fair);
        } catch (IllegalArgumentException e) {
            throw usage("invalid --ttl: " + e.getMessage());
        }
        try {
            return options.withNodeTimeout(nodeTimeout != null ? nodeTimeout : defaultNodeTimeout(held.ttl()));
        } catch (IllegalArgumentException e) {
            throw usage("invalid --node-timeout: " + e.getMessage());
        }
    }

    /**
     * A tenth of the TTL, at most {@link #MAX_DEFAULT_NODE_TIMEOUT}. Longer than the library's default
     * (at most 50 ms) because this process is new: its first request to each node waits for the
     * connection to open and for a cold JVM, which often takes longer than 50 ms.
     */
    static Duration defaultNodeTimeout(Duration ttl) {
        Duration tenth = ttl.dividedBy(10);
        return tenth.compareTo(MAX_DEFAULT_NODE_TIMEOUT) < 0 ? tenth : MAX_DEFAULT_NODE_TIMEOUT;
    }

    /**
     * Tries once; if busy, says who holds it (the holder of {@code exclusive}: the writer, or the read holds) and
     * waits (or not) as the options say.
     */
    private Optional<Lease> acquire(DistributedLock lock, DistributedLock exclusive, Duration left)
            throws InterruptedException {
        Optional<Lease> lease = HeldRun.firstTry(held.maxWait() != null, lock::tryAcquire);
        if (lease.isPresent()) {
            return lease;
        }
        String heldBy = held.quiet() ? "" : HeldRun.firstTry(true, () -> Optional.of(exclusive.holder()
                .map(LockHolder::describe).map(h -> " held by " + h).orElse(""))).orElse("");
        if (held.nonblock()) {
            progress("lock '" + name + "' is " + (heldBy.isEmpty() ? "busy" : heldBy.strip())
                    + "; not waiting (--nonblock)");
            return Optional.empty();
        }
        if (held.maxWait() == null) {
            progress("waiting for lock '" + name + "'" + heldBy);
            return Optional.of(lock.acquire());
        }
        progress("waiting up to " + DurationText.format(held.maxWait()) + " for lock '" + name + "'" + heldBy);
        lease = lock.acquire(left);
        if (lease.isEmpty()) {
            progress("gave up waiting for lock '" + name + "' after " + DurationText.format(held.maxWait()));
        }
        return lease;
    }

    /**
     * {@link #acquire} for several names at once: tries once; if busy, says which name is held by whom and waits (or
     * not) as the options say.
     */
    private Optional<MultiLease> acquireAll(Coordis coordis, List<String> names, LockOptions options, Duration left)
            throws InterruptedException {
        MultiLock lock = coordis.multiLock(names, options);
        Optional<MultiLease> lease = HeldRun.firstTry(held.maxWait() != null, lock::tryAcquire);
        if (lease.isPresent()) {
            return lease;
        }
        String what = "locks '" + String.join("', '", names) + "'";
        String heldBy = held.quiet() ? "" : HeldRun.firstTry(true, () -> names.stream()
                .flatMap(n -> coordis.lock(n, options).holder().map(h -> " ('" + n + "' held by " + h.describe() + ")")
                        .stream()).findFirst()).orElse("");
        if (held.nonblock()) {
            progress(what + " are busy" + heldBy + "; not waiting (--nonblock)");
            return Optional.empty();
        }
        if (held.maxWait() == null) {
            progress("waiting for " + what + heldBy);
            return Optional.of(lock.acquire());
        }
        progress("waiting up to " + DurationText.format(held.maxWait()) + " for " + what + heldBy);
        lease = lock.acquire(left);
        if (lease.isEmpty()) {
            progress("gave up waiting for " + what + " after " + DurationText.format(held.maxWait()));
        }
        return lease;
    }

    /**
     * For Redlock, on how many nodes the lock was granted, and which nodes did not grant it and why:
     * {@code " on 4 of 5 nodes (Redlock); not on 10.0.0.5:6379 timeout (no reply within 50 ms)"}.
     */
    static String where(Lease lease, int nodes) {
        if (nodes < 3) {
            return "";
        }
        List<NodeVote> votes = lease.votes();
        long granted = votes.stream().filter(v -> v.vote() == NodeVote.Vote.ACQUIRED).count();
        String missing = votes.stream()
                .filter(v -> v.vote() != NodeVote.Vote.ACQUIRED && v.vote() != NodeVote.Vote.NOT_AWAITED)
                .map(v -> v.toString().replaceAll("\\s*\\R\\s*", " ")).collect(Collectors.joining(", "));
        String unknown = votes.stream().filter(v -> v.vote() == NodeVote.Vote.NOT_AWAITED).map(NodeVote::node)
                .collect(Collectors.joining(", "));
        return " on " + granted + " of " + nodes + " nodes (Redlock)" + (missing.isEmpty() ? "" : "; not on " + missing)
                + (unknown.isEmpty() ? "" : "; not awaited (a majority had decided): " + unknown);
    }

    private void progress(String message) {
        if (!held.quiet()) {
            terminal.say(message);
        }
    }

    private ParameterException usage(String message) {
        return HeldRun.usage(spec, message);
    }
}
