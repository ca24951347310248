package io.coordis.testkit;

import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that runs real redis-server processes for a test class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisExtension redis = RedisExtension.standalone();
 *
 * @Test
 * void works() {
 *     var client = RedisClient.create(redis.uri());
 *     ...
 * }
 * }</pre>
 *
 * <p>As a {@code static} field the servers start before all tests of the class (blocking until they
 * answer PING) and are closed after all of them. As an instance field they start before and are
 * closed after each test. Unless {@link #noFlush()} is set, {@code FLUSHALL} runs on every running,
 * non-paused server before each test, so tests sharing servers start empty; servers a previous test
 * killed or paused are left as they are.
 *
 * <p>With {@link #sentinel(int, int)} the extension also runs sentinels ({@link SentinelGroup}); only
 * servers whose role is master are flushed then, so a failover in one test does not break the next.
 *
 * <p>Test and lifecycle methods can declare a {@link RedisServer} parameter (the first server), a
 * {@link RedisGroup} parameter or, with sentinels, a {@link SentinelGroup} parameter. Register at most one RedisExtension per class if you use parameters.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {

    private final Supplier<RedisGroup> factory;
    private final Supplier<SentinelGroup> sentinelFactory;
    private volatile RedisGroup group;
    private volatile SentinelGroup sentinels;
    private volatile boolean startedForTest;
    private volatile boolean flush = true;

    private RedisExtension(Supplier<RedisGroup> factory) {
        this(factory, null);
    }

    private RedisExtension(Supplier<RedisGroup> factory, Supplier<SentinelGroup> sentinelFactory) {
        this.factory = factory;
        this.sentinelFactory = sentinelFactory;
    }

    /**
     * One master with default options.
     *
     * @return the extension
     */
    public static RedisExtension standalone() {
        return masters(1);
    }

    /**
     * {@code n} independent masters with default options.
     *
     * @param n how many masters
     * @return the extension
     */
    public static RedisExtension masters(int n) {
        return masters(n, RedisServer.builder());
    }

    /**
     * {@code n} independent masters built from {@code template}. With the environment variable
     * {@code COORDIS_TEST_LEAST_PRIVILEGE=1}, a template without passwords, ACL users, replication or TLS gets
     * its default user restricted to {@link RedisServerBuilder#leastPrivilegeRules()}, so that every client
     * connecting without credentials runs with only the commands Coordis needs.
     *
     * @param n        how many masters
     * @param template the servers' options
     * @return the extension
     */
    public static RedisExtension masters(int n, RedisServerBuilder template) {
        RedisServerBuilder copy = RedisServerBuilder.leastPrivileged(template);
        return new RedisExtension(() -> RedisGroup.masters(n, copy));
    }

    /**
     * One master and {@code replicas} replicas, in sync before the first test.
     *
     * @param replicas how many replicas
     * @return the extension
     */
    public static RedisExtension withReplicas(int replicas) {
        return withReplicas(replicas, RedisServer.builder());
    }

    /**
     * One master and {@code replicas} replicas built from {@code template}; with
     * {@code COORDIS_TEST_LEAST_PRIVILEGE=1}, restricted as {@link #masters(int, RedisServerBuilder)} restricts
     * (the replicas replicate as the test kit's administrator).
     *
     * @param replicas how many replicas
     * @param template the servers' options
     * @return the extension
     */
    public static RedisExtension withReplicas(int replicas, RedisServerBuilder template) {
        RedisServerBuilder copy = RedisServerBuilder.leastPrivileged(template);
        return new RedisExtension(() -> RedisGroup.masterWithReplicas(replicas, copy));
    }

    /**
     * One server built from {@code builder}, e.g. {@code RedisServer.builder().requirePass("s3cret")}.
     *
     * @param builder the server's options
     * @return the extension
     */
    public static RedisExtension of(RedisServerBuilder builder) {
        return masters(1, builder);
    }

    /**
     * A master, {@code replicas} replicas and {@code sentinels} sentinels (master name
     * {@value SentinelGroup#DEFAULT_MASTER_NAME}), ready for a failover before the first test.
     *
     * @param replicas  how many replicas
     * @param sentinels how many sentinels
     * @return the extension
     */
    public static RedisExtension sentinel(int replicas, int sentinels) {
        return sentinel(replicas, sentinels, SentinelGroup.DEFAULT_MASTER_NAME, RedisServer.builder());
    }

    /**
     * Like {@link #sentinel(int, int)} with a master name and servers built from {@code template}.
     *
     * @param replicas   how many replicas
     * @param sentinels  how many sentinels
     * @param masterName the name the master is monitored under
     * @param template   the servers' options
     * @return the extension
     */
    public static RedisExtension sentinel(int replicas, int sentinels, String masterName, RedisServerBuilder template) {
        RedisServerBuilder copy = RedisServerBuilder.leastPrivileged(template);
        return new RedisExtension(null, () -> SentinelGroup.start(replicas, sentinels, masterName, copy));
    }

    /**
     * Do not run {@code FLUSHALL} before each test.
     *
     * @return this extension
     */
    public RedisExtension noFlush() {
        this.flush = false;
        return this;
    }

    /**
     * The first server.
     *
     * @return the server
     */
    public RedisServer server() {
        return group().server(0);
    }

    /**
     * All servers (master first for {@link #withReplicas(int)}).
     *
     * @return the servers
     */
    public List<RedisServer> servers() {
        return group().servers();
    }

    /**
     * URI of the first server.
     *
     * @return the URI
     */
    public String uri() {
        return server().uri();
    }

    /**
     * URIs of all servers.
     *
     * @return the URIs, in the order of {@link #servers()}
     */
    public List<String> uris() {
        return group().uris();
    }

    /**
     * The running sentinel group (servers and sentinels).
     *
     * @return the group
     * @throws IllegalStateException if this extension was not made by {@link #sentinel(int, int)}, or
     *                               outside its lifecycle
     */
    public SentinelGroup sentinelGroup() {
        if (sentinelFactory == null) {
            throw new IllegalStateException("this RedisExtension runs no sentinels; use RedisExtension.sentinel(...)");
        }
        group();
        return sentinels;
    }

    /**
     * {@link SentinelGroup#sentinelUri()} of the running sentinel group.
     *
     * @return the sentinels' URI
     */
    public String sentinelUri() {
        return sentinelGroup().sentinelUri();
    }

    /**
     * The running group.
     *
     * @return the group
     * @throws IllegalStateException outside the extension's lifecycle (before start or after close)
     */
    public RedisGroup group() {
        RedisGroup g = group;
        if (g == null) {
            throw new IllegalStateException("Redis servers are not running: use the RedisExtension from a test, "
                    + "a @BeforeEach/@AfterEach method, or (static field only) a @BeforeAll/@AfterAll method");
        }
        return g;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (group == null) {
            startGroup();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        closeGroup();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (group == null) {
            startGroup();
            startedForTest = true;
        }
        if (flush) {
            for (RedisServer s : group.servers()) {
                if (s.isRunning() && !s.isPaused() && !isReplica(s)) {
                    s.flushAll();
                }
            }
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (startedForTest) {
            startedForTest = false;
            closeGroup();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        Class<?> type = parameterContext.getParameter().getType();
        return type == RedisServer.class || type == RedisGroup.class
                || (type == SentinelGroup.class && sentinelFactory != null);
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        RedisGroup g = group;
        if (g == null) {
            throw new ParameterResolutionException("cannot inject " + parameterContext.getParameter()
                    + ": the Redis servers are not running yet (instance-field RedisExtension cannot serve "
                    + "constructor or @BeforeAll parameters)");
        }
        Class<?> type = parameterContext.getParameter().getType();
        if (type == SentinelGroup.class) {
            return sentinels;
        }
        return type == RedisGroup.class ? g : g.server(0);
    }

    private boolean isReplica(RedisServer s) {
        if (sentinels != null) {
            return !"master".equals(s.info("replication").get("role"));
        }
        RedisGroup g = group;
        return g.hasReplicas() && g.master() != s;
    }

    private void startGroup() {
        if (sentinelFactory != null) {
            SentinelGroup sg = sentinelFactory.get();
            sentinels = sg;
            group = sg.redis();
        } else {
            group = factory.get();
        }
    }

    private void closeGroup() {
        RedisGroup g = group;
        SentinelGroup sg = sentinels;
        group = null;
        sentinels = null;
        if (sg != null) {
            sg.close();
        } else if (g != null) {
            g.close();
        }
    }
}
