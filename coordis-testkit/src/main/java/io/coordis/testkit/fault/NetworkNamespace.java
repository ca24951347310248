package io.coordis.testkit.fault;

import io.coordis.testkit.ContinuousIntegration;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A network namespace of the test's own, joined to this host's namespace by a veth pair with private
 * addresses ({@code 10.213.N.1} here, {@code 10.213.N.2} inside): a second "host" on the same machine that
 * nothing outside it can reach. A server started inside (see
 * {@link io.coordis.testkit.RedisServerBuilder#namespace(NetworkNamespace)}) can be cut off from every client
 * by {@link #partition()}, which installs nftables rules inside the namespace that drop all traffic on its
 * end of the link; {@link #heal()} removes them. Needs root, {@code ip} (iproute2) and {@code nft}
 * (nftables); {@link #unavailableReason()} says why not when they are missing.
 *
 * <p>Namespaces are host-wide, so {@link #create()} takes a file lock that every test JVM on the host shares
 * while it picks a subnet: one that no interface on the host uses yet. A second link on a subnet already in
 * use would route this namespace's traffic to the other one, and a server started inside would look refused.
 * Under the same lock it deletes the namespaces that test JVMs which are no longer running left behind (a
 * JVM killed before its tests closed them).
 */
public final class NetworkNamespace implements AutoCloseable {
    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static final String TABLE = "coordis_partition";
    private static final String PREFIX = "coordis-";
    private static final Pattern OURS = Pattern.compile(PREFIX + "(\\d+)x(\\d+)");
    private static final Pattern SUBNET_IN_USE = Pattern.compile("inet 10\\.213\\.(\\d+)\\.");
    private static final Path LOCK = Path.of(System.getProperty("java.io.tmpdir"), "coordis-netns.lock");
    /** Subnets {@code 10.213.1.0/30} to {@code 10.213.250.0/30}. */
    static final int SUBNETS = 250;

    private final String name;
    private final String outside;
    private final String inside;
    private final String hostAddress;
    private final String address;
    private boolean partitioned;
    private boolean closed;

    private NetworkNamespace(int n, int subnet) {
        // the whole PID, so that a namespace outliving its JVM can be told apart (interface names: 15 chars)
        String tag = ProcessHandle.current().pid() + "x" + n;
        this.name = PREFIX + tag;
        this.outside = "cdv" + tag + "o";
        this.inside = "cdv" + tag + "i";
        this.hostAddress = "10.213." + subnet + ".1";
        this.address = "10.213." + subnet + ".2";
    }

    /**
     * For a test that needs namespaces and nftables: skips it where they are unavailable, but fails it in CI
     * ({@link ContinuousIntegration}), where they are required, naming why they are missing.
     *
     * @param what what the test needs, as the failure names it: {@code "network namespaces (for partitions)"}
     */
    public static void requiredInCi(String what) {
        String reason = unavailableReason();
        Assumptions.assumeTrue(reason == null || ContinuousIntegration.running(), () -> "skipped outside CI: " + reason);
        if (reason != null) {
            Assertions.fail(what + " are required in CI, and unavailable: " + reason);
        }
    }

    /**
     * Why namespaces cannot be made here, or {@code null} when they can.
     *
     * @return the reason, or {@code null}
     */
    public static String unavailableReason() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "network namespaces need root (running as " + System.getProperty("user.name") + ")";
        }
        for (String tool : List.of("ip", "nft")) {
            if (!onPath(tool)) {
                return "'" + tool + "' is not installed (iproute2 / nftables)";
            }
        }
        return null;
    }

    /**
     * Creates a namespace with its link up, on a subnet no interface on this host uses.
     *
     * @return the namespace; close it to delete
     */
    public static NetworkNamespace create() {
        int n = COUNTER.incrementAndGet() % 1000; // keeps interface names within 15 characters
        return create(n, (int) ((ProcessHandle.current().pid() * 7 + n) % SUBNETS) + 1);
    }

    /** As {@link #create()}, trying subnet {@code preferred} first. */
    static NetworkNamespace create(int n, int preferred) {
        String reason = unavailableReason();
        if (reason != null) {
            throw new IllegalStateException("cannot create a network namespace: " + reason);
        }
        synchronized (NetworkNamespace.class) { // a JVM may not take the file lock twice
            try (FileChannel channel = FileChannel.open(LOCK, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                reapLeftovers();
                NetworkNamespace ns = new NetworkNamespace(n, pickSubnet(subnetsInUse(), preferred));
                try {
                    ns.setUp();
                    return ns;
                } catch (RuntimeException e) {
                    ns.close();
                    throw e;
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot lock " + LOCK + " to pick a subnet: " + e.getMessage(), e);
            }
        }
    }

    /** The first subnet from {@code preferred} on (wrapping around) that is not in {@code inUse}. */
    static int pickSubnet(Set<Integer> inUse, int preferred) {
        if (preferred < 1 || preferred > SUBNETS) {
            throw new IllegalArgumentException("subnet " + preferred + " is not within 1.." + SUBNETS);
        }
        for (int i = 0; i < SUBNETS; i++) {
            int subnet = (preferred - 1 + i) % SUBNETS + 1;
            if (!inUse.contains(subnet)) {
                return subnet;
            }
        }
        throw new IllegalStateException("all " + SUBNETS + " subnets 10.213.N.0/30 are in use on this host;"
                + " delete stale namespaces with 'ip netns del' (see 'ip netns list')");
    }

    /** The N of every {@code 10.213.N.x} address on an interface of this host's namespace. */
    static Set<Integer> subnetsInUse() {
        Set<Integer> used = new TreeSet<>();
        Matcher m = SUBNET_IN_USE.matcher(run("ip", "-o", "-4", "addr", "show"));
        while (m.find()) {
            used.add(Integer.parseInt(m.group(1)));
        }
        return used;
    }

    /** Deletes the namespaces (and host ends of their links) whose creating JVM is gone and that hold no process. */
    private static void reapLeftovers() {
        for (String line : run("ip", "netns", "list").split("\n")) {
            String name = line.trim().split("\\s+")[0];
            Matcher m = OURS.matcher(name);
            if (!m.matches() || running(Long.parseLong(m.group(1)))
                    || !run("ip", "netns", "pids", name).isBlank()) {
                continue;
            }
            runQuietly("ip", "link", "del", "cdv" + m.group(1) + "x" + m.group(2) + "o");
            runQuietly("ip", "netns", "del", name);
        }
    }

    private void setUp() {
        run("ip", "netns", "add", name);
        run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside);
        run("ip", "link", "set", inside, "netns", name);
        run("ip", "addr", "add", hostAddress + "/30", "dev", outside);
        run("ip", "link", "set", outside, "up");
        inNamespace("ip", "addr", "add", address + "/30", "dev", inside);
        inNamespace("ip", "link", "set", inside, "up");
        inNamespace("ip", "link", "set", "lo", "up");
    }

    /**
     * The namespace's name, as {@code ip netns} knows it.
     *
     * @return the name
     */
    public String name() {
        return name;
    }

    /**
     * The address of the namespace's end of the link (where a server inside listens).
     *
     * @return the address
     */
    public String address() {
        return address;
    }

    /**
     * {@code command} prefixed so that it runs inside the namespace (the PID stays the command's own).
     *
     * @param command a command line
     * @return the command line that runs it inside the namespace
     */
    public List<String> wrap(List<String> command) {
        List<String> wrapped = new ArrayList<>(List.of(resolve("ip"), "netns", "exec", name));
        wrapped.addAll(command);
        return wrapped;
    }

    /**
     * Drops every packet in and out of the namespace's link: its servers are cut off from all clients.
     *
     * @throws IllegalStateException when a rule cannot be installed; the rules installed before it are
     *                               removed again, so a failed partition leaves none behind
     */
    public synchronized void partition() {
        if (partitioned) {
            return;
        }
        try {
            inNamespace("nft", "add", "table", "inet", TABLE);
            inNamespace("nft", "add", "chain", "inet", TABLE, "in", "{ type filter hook input priority 0 ; policy accept ; }");
            inNamespace("nft", "add", "chain", "inet", TABLE, "out", "{ type filter hook output priority 0 ; policy accept ; }");
            inNamespace("nft", "add", "rule", "inet", TABLE, "in", "iifname", inside, "drop");
            inNamespace("nft", "add", "rule", "inet", TABLE, "out", "oifname", inside, "drop");
        } catch (RuntimeException e) {
            runQuietly(wrap(List.of("nft", "delete", "table", "inet", TABLE)).toArray(String[]::new));
            throw e;
        }
        partitioned = true;
    }

    /** Removes the partition. Idempotent. */
    public synchronized void heal() {
        if (!partitioned) {
            return;
        }
        inNamespace("nft", "delete", "table", "inet", TABLE);
        partitioned = false;
    }

    /**
     * Whether the namespace is cut off now.
     *
     * @return {@code true} between a partition and its healing
     */
    public synchronized boolean isPartitioned() {
        return partitioned;
    }

    /** Heals, then deletes the namespace and its link. Servers inside must be stopped first. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            heal();
        } catch (RuntimeException ignored) {
            // deleting the namespace removes its rules too
        }
        runQuietly("ip", "link", "del", outside);
        runQuietly("ip", "netns", "del", name);
    }

    @Override
    public String toString() {
        return "netns " + name + " (" + address + ")";
    }

    private void inNamespace(String... command) {
        run(wrap(List.of(command)).toArray(String[]::new));
    }

    static void runQuietly(String... command) {
        try {
            run(command);
        } catch (RuntimeException ignored) {
            // already gone
        }
    }

    /** Whether the process (a test JVM whose PID names a namespace or a table) is still running. */
    static boolean running(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    /** Runs a tool (found by {@link #resolve}) and answers its output; fails when it fails or takes over 10 s. */
    static String run(String... command) {
        command = command.clone();
        command[0] = resolve(command[0]);
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within 10 s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed (" + p.exitValue() + "): " + out);
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running " + String.join(" ", command), e);
        }
    }

    private static boolean onPath(String tool) {
        return !resolve(tool).equals(tool);
    }

    /** The tool's full path (PATH, then the sbin directories root's PATH may lack), or the name itself. */
    private static String resolve(String tool) {
        if (tool.contains("/")) {
            return tool;
        }
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin:/usr/bin:/bin";
        for (String dir : path.split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
                return Path.of(dir, tool).toString();
            }
        }
        return tool;
    }
}
