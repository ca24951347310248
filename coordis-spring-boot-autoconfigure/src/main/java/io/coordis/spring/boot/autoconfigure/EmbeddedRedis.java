package io.coordis.spring.boot.autoconfigure;

import io.coordis.redis.runner.RedisProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * The development server of {@code coordis.embedded=true}: a real {@code redis-server} process started by the
 * Redis runner (from {@code PATH}, else the embedded-redis binary it brings) when the client first needs it,
 * and stopped with the application context. Its data lives only as long as the process.
 */
final class EmbeddedRedis implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedRedis.class);

    private RedisProcess server;

    /** The server's URL, starting it on first use. */
    synchronized RedisUrls urls() {
        if (server == null) {
            try {
                server = RedisProcess.builder().start();
            } catch (RuntimeException e) {
                throw new ConfigurationProblem("coordis.embedded=true could not start a redis-server: " + e.getMessage(),
                        "Put redis-server on the PATH (or set COORDIS_REDIS_SERVER to its path), or connect to a "
                                + "running Redis with coordis.urls=redis://host:6379 and remove coordis.embedded.", e);
            }
            LOG.warn("coordis.embedded=true: started redis-server {} ({}) at {} for this application; it is for "
                            + "development only, its data is lost when the application stops: set coordis.urls "
                            + "(or spring.data.redis.*) for anything else", server.version(), server.binary().path(),
                    server.address());
        }
        return new RedisUrls(List.of(server.uri()), "coordis.embedded");
    }

    @Override
    public synchronized void close() {
        if (server != null) {
            LOG.info("stopping the development redis-server at {}", server.address());
            server.close();
            server = null;
        }
    }
}
