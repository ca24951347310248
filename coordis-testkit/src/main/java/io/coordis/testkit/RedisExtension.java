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
 * <p>Test and lifecycle methods can declare a {@link RedisServer} parameter (the first server) or a
 * {@link RedisGroup} parameter. Register at most one RedisExtension per class if you use parameters.
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback,
        AfterEachCallback, ParameterResolver {

    private final Supplier<RedisGroup> factory;
    private volatile RedisGroup group;
    private volatile boolean startedForTest;
    private volatile boolean flush = true;

    private RedisExtension(Supplier<RedisGroup> factory) {
        this.factory = factory;
    }

    /** One master with default options. */
    public static RedisExtension standalone() {
        return masters(1);
    }

    /** {@code n} independent masters with default options. */
    public static RedisExtension masters(int n) {
        return masters(n, RedisServer.builder());
    }

    /** {@code n} independent masters built from {@code template}. */
    public static RedisExtension masters(int n, RedisServerBuilder template) {
        RedisServerBuilder copy = template.copy();
        return new RedisExtension(() -> RedisGroup.masters(n, copy));
    }

    /** One master and {@code replicas} replicas, in sync before the first test. */
    public static RedisExtension withReplicas(int replicas) {
        return withReplicas(replicas, RedisServer.builder());
    }

    /** One master and {@code replicas} replicas built from {@code template}. */
    public static RedisExtension withReplicas(int replicas, RedisServerBuilder template) {
        RedisServerBuilder copy = template.copy();
        return new RedisExtension(() -> RedisGroup.masterWithReplicas(replicas, copy));
    }

    /** One server built from {@code builder}, e.g. {@code RedisServer.builder().requirePass("s3cret")}. */
    public static RedisExtension of(RedisServerBuilder builder) {
        return masters(1, builder);
    }

    /** Do not run {@code FLUSHALL} before each test. */
    public RedisExtension noFlush() {
        this.flush = false;
        return this;
    }

    /** The first server. */
    public RedisServer server() {
        return group().server(0);
    }

    /** All servers (master first for {@link #withReplicas(int)}). */
    public List<RedisServer> servers() {
        return group().servers();
    }

    /** URI of the first server. */
    public String uri() {
        return server().uri();
    }

    /** URIs of all servers. */
    public List<String> uris() {
        return group().uris();
    }

    /**
     * The running group.
     *
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
            group = factory.get();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        closeGroup();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (group == null) {
            group = factory.get();
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
        return type == RedisServer.class || type == RedisGroup.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        RedisGroup g = group;
        if (g == null) {
            throw new ParameterResolutionException("cannot inject " + parameterContext.getParameter()
                    + ": the Redis servers are not running yet (instance-field RedisExtension cannot serve "
                    + "constructor or @BeforeAll parameters)");
        }
        return parameterContext.getParameter().getType() == RedisGroup.class ? g : g.server(0);
    }

    private boolean isReplica(RedisServer s) {
        RedisGroup g = group;
        return g.hasReplicas() && g.master() != s;
    }

    private void closeGroup() {
        RedisGroup g = group;
        group = null;
        if (g != null) {
            g.close();
        }
    }
}
