package io.coordis.testkit;

import io.coordis.redis.runner.ProcessSupport;
import io.coordis.redis.runner.RedisBinary;
import io.coordis.redis.runner.RedisProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A Redis Sentinel running as a child process: the same {@code redis-server} binary as the servers
 * ({@code redis-server <conf> --sentinel}, so no separate {@code redis-sentinel} executable is needed),
 * on a free loopback port with its own directory and configuration, monitoring one master.
 *
 * <pre>{@code
 * try (RedisServer master = RedisServer.start();
 *      RedisSentinel sentinel = RedisSentinel.builder("mymaster", master).start()) {
 *     sentinel.masterAddress(); // Optional["127.0.0.1:<master port>"]
 * }
 * }</pre>
 *
 * <p>Defaults: quorum 1, {@code down-after-milliseconds} 1000, {@code failover-timeout} 3000,
 * {@code parallel-syncs} 1; the master's requirepass becomes {@code auth-pass} (with a restricted default user,
 * the sentinel logs in as the test kit's administrator). The sentinel itself
 * needs no password. For several sentinels watching a master with replicas see {@link SentinelGroup}.
 */
public final class RedisSentinel extends LocalProcess {

    private final RedisServer server;
    private final String masterName;

    private RedisSentinel(RedisServer server, String masterName) {
        this.server = server;
        this.masterName = masterName;
    }

    @Override
    RedisProcess process() {
        return server.process();
    }

    /**
     * Options for a sentinel monitoring {@code master} under {@code masterName}.
     *
     * @param masterName the name the master is monitored under
     * @param master     the master to monitor
     * @return a new builder
     */
    public static Builder builder(String masterName, RedisServer master) {
        return new Builder(masterName, master);
    }

    /**
     * The name the master is monitored under.
     *
     * @return the name
     */
    public String masterName() {
        return masterName;
    }

    /**
     * What this sentinel currently reports for the master ({@code SENTINEL get-master-addr-by-name}),
     * as {@code "host:port"}; empty if it does not know the name. Blocks at most 5 s.
     *
     * @return the master's address, or empty
     */
    public Optional<String> masterAddress() {
        Object reply = command("SENTINEL", "get-master-addr-by-name", masterName);
        if (reply instanceof List<?> list && list.size() == 2) {
            return Optional.of(list.get(0) + ":" + list.get(1));
        }
        return Optional.empty();
    }

    /**
     * {@code SENTINEL master <name>} as a field map ({@code flags}, {@code num-slaves}, ...).
     *
     * @return the fields
     */
    public Map<String, String> masterState() {
        Object reply = command("SENTINEL", "master", masterName);
        Map<String, String> map = new LinkedHashMap<>();
        if (reply instanceof List<?> list) {
            for (int i = 0; i + 1 < list.size(); i += 2) {
                map.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
            }
        }
        return map;
    }

    /**
     * {@code SENTINEL replicas <name>}: one field map per replica the sentinel knows ({@code ip},
     * {@code port}, {@code flags}, {@code master-link-status}, ...).
     *
     * @return the replicas' fields
     */
    public List<Map<String, String>> replicaStates() {
        Object reply = command("SENTINEL", "replicas", masterName);
        List<Map<String, String>> states = new ArrayList<>();
        if (reply instanceof List<?> replicas) {
            for (Object r : replicas) {
                Map<String, String> map = new LinkedHashMap<>();
                if (r instanceof List<?> fields) {
                    for (int i = 0; i + 1 < fields.size(); i += 2) {
                        map.put(String.valueOf(fields.get(i)), String.valueOf(fields.get(i + 1)));
                    }
                }
                states.add(map);
            }
        }
        return states;
    }

    /**
     * Runs one command on the sentinel (fresh connection, reply within 5 s), e.g.
     * {@code command("SENTINEL", "replicas", "mymaster")}.
     *
     * @param args the command and its arguments
     * @return the reply
     */
    public Object command(String... args) {
        return server.command(args);
    }

    @Override
    public String toString() {
        return "RedisSentinel[" + address() + " watching " + masterName
                + (isRunning() ? ", pid " + pid() : ", not running") + "]";
    }

    /** Options for a {@link RedisSentinel}. */
    public static final class Builder {
        private final String masterName;
        private final RedisServer master;
        private int quorum = 1;
        private Duration downAfter = Duration.ofMillis(1000);
        private Duration failoverTimeout = Duration.ofMillis(3000);
        private RedisBinary binary;
        private Duration startTimeout = Duration.ofSeconds(10);

        private Builder(String masterName, RedisServer master) {
            if (masterName == null || !masterName.matches("[A-Za-z0-9._-]+")) {
                throw new IllegalArgumentException("master name must be letters, digits, '.', '_' or '-', got " + masterName);
            }
            this.masterName = masterName;
            this.master = Objects.requireNonNull(master, "master");
            if (master.isTls()) {
                throw new IllegalArgumentException("sentinels for TLS servers are not supported by the test kit");
            }
        }

        /**
         * Sentinels that must agree the master is down before a failover; default 1.
         *
         * @param quorum how many sentinels must agree
         * @return this builder
         */
        public Builder quorum(int quorum) {
            if (quorum < 1) {
                throw new IllegalArgumentException("quorum must be at least 1, got " + quorum);
            }
            this.quorum = quorum;
            return this;
        }

        /**
         * {@code down-after-milliseconds}: silence after which the master counts as down; default 1 s.
         *
         * @param downAfter the silence after which the master counts as down
         * @return this builder
         */
        public Builder downAfter(Duration downAfter) {
            this.downAfter = positive(downAfter, "down-after");
            return this;
        }

        /**
         * {@code failover-timeout}; default 3 s (a failed failover is retried after twice this).
         *
         * @param failoverTimeout the failover timeout
         * @return this builder
         */
        public Builder failoverTimeout(Duration failoverTimeout) {
            this.failoverTimeout = positive(failoverTimeout, "failover timeout");
            return this;
        }

        /**
         * Runs this binary instead of the master's.
         *
         * @param binary the binary to run
         * @return this builder
         */
        public Builder binary(RedisBinary binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        /**
         * How long {@link #start()} waits for the sentinel to answer; default 10 s.
         *
         * @param timeout the longest wait for an answer
         * @return this builder
         */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = positive(timeout, "start timeout");
            return this;
        }

        /**
         * Starts the sentinel and blocks until it answers {@code SENTINEL get-master-addr-by-name}
         * (at most the start timeout).
         *
         * @return the running sentinel; close it to stop
         * @throws IllegalStateException if it does not come up; the message holds its log tail
         */
        public RedisSentinel start() {
            String name = masterName;
            List<String[]> lines = new ArrayList<>();
            lines.add(new String[] {"sentinel", "monitor", name, master.host(), Integer.toString(master.port()),
                    Integer.toString(quorum)});
            lines.add(new String[] {"sentinel", "down-after-milliseconds", name, Long.toString(downAfter.toMillis())});
            lines.add(new String[] {"sentinel", "failover-timeout", name, Long.toString(failoverTimeout.toMillis())});
            lines.add(new String[] {"sentinel", "parallel-syncs", name, "1"});
            if (master.adminPassword() != null) {
                // the servers' default user is restricted: monitor and fail over as their administrator
                lines.add(new String[] {"sentinel", "auth-user", name, RedisServerBuilder.ADMIN_USER});
                lines.add(new String[] {"sentinel", "auth-pass", name, master.adminPassword()});
            } else {
                master.password().ifPresent(pw -> lines.add(new String[] {"sentinel", "auth-pass", name, pw}));
            }
            RedisServerBuilder b = RedisServer.builder()
                    .binary(binary != null ? binary : master.binary())
                    .startTimeout(startTimeout);
            b.sentinelLines = lines;
            RedisServer process = b.start();
            RedisSentinel sentinel = new RedisSentinel(process, name);
            try {
                long deadline = System.nanoTime() + startTimeout.toNanos();
                while (sentinel.masterAddress().isEmpty()) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("sentinel " + sentinel.address() + " does not know master '"
                                + name + "' after " + startTimeout + "; log tail:\n"
                                + ProcessSupport.tail(sentinel.logFile(), 30));
                    }
                    ProcessSupport.sleep(Duration.ofMillis(20));
                }
                return sentinel;
            } catch (RuntimeException e) {
                sentinel.close();
                throw e;
            }
        }

        private static Duration positive(Duration d, String what) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, got " + d);
            }
            return d;
        }
    }
}
