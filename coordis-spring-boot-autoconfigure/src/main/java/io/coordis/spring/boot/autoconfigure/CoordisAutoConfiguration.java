package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.CoordisException;
import io.coordis.Urls;
import io.coordis.lock.LockOptions;
import io.coordis.queue.QueueOptions;
import io.coordis.redis.runner.RedisProcess;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A {@link Coordis} client bean, closed with the context, connected to the first of:
 * <ol>
 *   <li>{@code coordis.urls};</li>
 *   <li>with {@code coordis.embedded=true} (development only), a {@code redis-server} it starts itself;</li>
 *   <li>the Redis of Spring Data Redis ({@code spring.data.redis.*} or a connection-details bean).</li>
 * </ol>
 * Also {@link LockOptions} and {@link QueueOptions} beans from {@code coordis.lock.*} and {@code coordis.queue.*},
 * for the parts of an application that make locks and queues. Every bean backs off when the application
 * defines its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(Coordis.class)
@EnableConfigurationProperties(CoordisProperties.class)
public class CoordisAutoConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(CoordisAutoConfiguration.class);

    /**
     * The client, connected at start-up to the first Redis of the list above and closed with the context.
     *
     * @param properties  the {@code coordis.*} properties
     * @param embedded    the development server, when {@code coordis.embedded=true}
     * @param springData  the Redis of Spring Data Redis, when the application has it
     * @param customizers change the builder after the properties, in their order
     * @return the connected client
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public Coordis coordis(CoordisProperties properties, ObjectProvider<EmbeddedRedis> embedded,
                           ObjectProvider<SpringDataRedis> springData, ObjectProvider<CoordisBuilderCustomizer> customizers) {
        RedisUrls urls = urls(properties, embedded, springData);
        Coordis.Builder builder = BuilderProperties.builder(properties, urls);
        customizers.orderedStream().forEach(c -> c.customize(builder));
        try {
            Coordis coordis = builder.connect();
            LOG.info("Coordis connected to {} (from {})", coordis.address(), urls.source());
            return coordis;
        } catch (IllegalArgumentException e) {
            throw new ConfigurationProblem(urls.source() + ": " + Urls.redact(e.getMessage()),
                    "Correct " + urls.source() + "; Redis URLs look like redis://[user:password@]host:port[/db].", e);
        } catch (CoordisException e) {
            throw new ConfigurationProblem("cannot reach Redis at " + Urls.redact(String.join(",", urls.urls()))
                    + " (from " + urls.source() + "): " + Urls.redact(e.getMessage()),
                    "Start Redis there, or point " + urls.source() + " at a running one"
                            + (urls.source().equals("coordis.urls") ? "" : " (or set coordis.urls)")
                            + "; for development, coordis.embedded=true starts a redis-server.", e);
        }
    }

    private static RedisUrls urls(CoordisProperties properties, ObjectProvider<EmbeddedRedis> embedded,
                                  ObjectProvider<SpringDataRedis> springData) {
        if (!properties.getUrls().isEmpty()) {
            if (properties.isEmbedded()) {
                LOG.info("coordis.urls is set, so coordis.embedded=true starts no redis-server");
            }
            return new RedisUrls(properties.getUrls(), "coordis.urls");
        }
        if (properties.isEmbedded()) {
            EmbeddedRedis server = embedded.getIfAvailable();
            if (server == null) {
                throw new ConfigurationProblem("coordis.embedded=true needs io.coordis:coordis-redis-runner on the "
                        + "class path, which starts the redis-server",
                        "Add the dependency io.coordis:coordis-redis-runner (development only), or set "
                                + "coordis.urls=redis://host:6379 and remove coordis.embedded.");
            }
            return server.urls();
        }
        SpringDataRedis data = springData.getIfAvailable();
        if (data == null) {
            throw new ConfigurationProblem("no Redis is configured: coordis.urls is not set and there is no "
                    + "Spring Data Redis connection",
                    "Set coordis.urls=redis://host:6379 (three or more URLs for Redlock), or spring.data.redis.host "
                            + "and spring.data.redis.port; for development, coordis.embedded=true starts a redis-server.");
        }
        return data.urls();
    }

    /**
     * The options an application's locks start from, from {@code coordis.lock.*}; {@code @Locked} methods take them
     * too. Fair options that the client cannot make locks with (on Redlock) stop start-up.
     *
     * @param properties the {@code coordis.*} properties
     * @param coordis    the client, to check fair options against
     * @return the lock options
     */
    @Bean
    @ConditionalOnMissingBean
    public LockOptions coordisLockOptions(CoordisProperties properties, ObjectProvider<Coordis> coordis) {
        LockOptions options = BuilderProperties.lockOptions(properties.getLock());
        Coordis client = options.fair() ? coordis.getIfUnique() : null;
        if (client != null) {
            BuilderProperties.checkFair(options, client);
        }
        return options;
    }

    /**
     * The options an application's queues start from, from {@code coordis.queue.*}.
     *
     * @param properties the {@code coordis.*} properties
     * @return the queue options
     */
    @Bean
    @ConditionalOnMissingBean
    public QueueOptions coordisQueueOptions(CoordisProperties properties) {
        return BuilderProperties.queueOptions(properties.getQueue());
    }

    /** The development server; started only when the client needs it. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RedisProcess.class)
    @ConditionalOnProperty(name = "coordis.embedded", havingValue = "true")
    static class Embedded {
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        EmbeddedRedis coordisEmbeddedRedis() {
            return new EmbeddedRedis();
        }
    }

    /** The connection Spring Data Redis was given, when the application has one. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DataRedisConnectionDetails.class)
    @ConditionalOnBean(DataRedisConnectionDetails.class)
    static class SpringData {
        @Bean
        @ConditionalOnMissingBean
        SpringDataRedis coordisSpringDataRedis(DataRedisConnectionDetails details) {
            return new SpringDataRedis(details);
        }
    }
}
