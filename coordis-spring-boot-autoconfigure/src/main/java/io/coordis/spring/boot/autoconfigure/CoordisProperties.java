package io.coordis.spring.boot.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code coordis.*} properties of a Spring Boot application. Every property is optional: with no
 * {@code coordis.urls} the client connects to the Redis that {@code spring.data.redis.*} describes.
 * Bad values stop start-up with a message naming the property and what to write instead.
 */
@ConfigurationProperties("coordis")
public class CoordisProperties {
    /**
     * Redis URLs: one (redis://host:6379, rediss:// for TLS, redis-sentinel://, redis-cluster://), or three and
     * more independent masters for Redlock. Default: the Redis of spring.data.redis.*.
     */
    private List<String> urls = new ArrayList<>();

    /** URLs of replicas of the master, on which signal waiters listen as well. */
    private List<String> replicaUrls = new ArrayList<>();

    /** A prefix put before every key and channel name, e.g. "billing:"; no braces or glob characters. */
    private String keyPrefix = "";

    /** Upper bound on one round trip to Redis, also the connect timeout. */
    private Duration commandTimeout = Duration.ofSeconds(2);

    /**
     * Development only: with no URL, start a redis-server (from PATH, else the one shipped with the
     * coordis-redis-runner artifact) for this application and stop it on shutdown. Needs coordis-redis-runner on the
     * class path.
     */
    private boolean embedded = false;

    private final Tls tls = new Tls();

    private final Lock lock = new Lock();

    private final Queue queue = new Queue();

    private final Metrics metrics = new Metrics();

    /**
     * The Redis URLs: one, or three and more independent masters for Redlock ({@code coordis.urls}).
     *
     * @return the URLs; empty for the Redis of {@code spring.data.redis.*}
     */
    public List<String> getUrls() {
        return urls;
    }

    /**
     * Sets the Redis URLs: one, or three and more independent masters for Redlock ({@code coordis.urls}).
     *
     * @param urls the URLs; empty for the Redis of {@code spring.data.redis.*}
     */
    public void setUrls(List<String> urls) {
        this.urls = urls;
    }

    /**
     * URLs of replicas of the master, on which signal waiters listen as well ({@code coordis.replica-urls}).
     *
     * @return the URLs; empty for none
     */
    public List<String> getReplicaUrls() {
        return replicaUrls;
    }

    /**
     * Sets URLs of replicas of the master, on which signal waiters listen as well ({@code coordis.replica-urls}).
     *
     * @param replicaUrls the URLs; empty for none
     */
    public void setReplicaUrls(List<String> replicaUrls) {
        this.replicaUrls = replicaUrls;
    }

    /**
     * The prefix put before every key and channel name ({@code coordis.key-prefix}).
     *
     * @return the prefix; empty for none
     */
    public String getKeyPrefix() {
        return keyPrefix;
    }

    /**
     * Sets the prefix put before every key and channel name ({@code coordis.key-prefix}).
     *
     * @param keyPrefix the prefix; empty for none
     */
    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    /**
     * The upper bound on one round trip to Redis, also the connect timeout ({@code coordis.command-timeout}).
     *
     * @return the timeout; 2 s by default
     */
    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    /**
     * Sets the upper bound on one round trip to Redis, also the connect timeout ({@code coordis.command-timeout}).
     *
     * @param commandTimeout the timeout; 2 s by default
     */
    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    /**
     * Whether a redis-server is started for this application when no URL is given ({@code coordis.embedded}),
     * in development.
     *
     * @return {@code true} to start one; {@code false} by default
     */
    public boolean isEmbedded() {
        return embedded;
    }

    /**
     * Sets whether a redis-server is started for this application when no URL is given
     * ({@code coordis.embedded}), in development.
     *
     * @param embedded {@code true} to start one; {@code false} by default
     */
    public void setEmbedded(boolean embedded) {
        this.embedded = embedded;
    }

    /**
     * TLS for {@code rediss://} URLs ({@code coordis.tls.*}).
     *
     * @return the TLS settings
     */
    public Tls getTls() {
        return tls;
    }

    /**
     * The defaults of the {@code LockOptions} bean ({@code coordis.lock.*}).
     *
     * @return the lock defaults
     */
    public Lock getLock() {
        return lock;
    }

    /**
     * The defaults of the {@code QueueOptions} bean ({@code coordis.queue.*}).
     *
     * @return the queue defaults
     */
    public Queue getQueue() {
        return queue;
    }

    /**
     * The client's Micrometer meters ({@code coordis.metrics.*}).
     *
     * @return the metrics settings
     */
    public Metrics getMetrics() {
        return metrics;
    }

    /** TLS for rediss:// URLs. */
    public static class Tls {
        /** PEM file of the CA certificates to trust instead of the JVM's trust store. */
        private Path ca;

        /** PEM file of the client's certificate chain, for servers with tls-auth-clients; needs coordis.tls.key. */
        private Path cert;

        /** PEM file of the client's unencrypted PKCS#8 private key (BEGIN PRIVATE KEY); needs coordis.tls.cert. */
        private Path key;

        /** Whether the server's certificate must name the host of the URL; false is unsafe. */
        private boolean verifyHostname = true;

        /**
         * The PEM file of the CA certificates to trust instead of the JVM's trust store ({@code coordis.tls.ca}).
         *
         * @return the file; {@code null} for the JVM's trust store
         */
        public Path getCa() {
            return ca;
        }

        /**
         * Sets the PEM file of the CA certificates to trust instead of the JVM's trust store ({@code coordis.tls.ca}).
         *
         * @param ca the file; {@code null} for the JVM's trust store
         */
        public void setCa(Path ca) {
            this.ca = ca;
        }

        /**
         * The PEM file of the client's certificate chain, for servers that require client certificates
         * ({@code coordis.tls.cert}).
         *
         * @return the file; {@code null} for none
         */
        public Path getCert() {
            return cert;
        }

        /**
         * Sets the PEM file of the client's certificate chain, for servers that require client certificates
         * ({@code coordis.tls.cert}).
         *
         * @param cert the file; {@code null} for none
         */
        public void setCert(Path cert) {
            this.cert = cert;
        }

        /**
         * The PEM file of the client's unencrypted PKCS#8 private key ({@code coordis.tls.key}).
         *
         * @return the file; {@code null} for none
         */
        public Path getKey() {
            return key;
        }

        /**
         * Sets the PEM file of the client's unencrypted PKCS#8 private key ({@code coordis.tls.key}).
         *
         * @param key the file; {@code null} for none
         */
        public void setKey(Path key) {
            this.key = key;
        }

        /**
         * Whether the server's certificate must name the host of the URL ({@code coordis.tls.verify-hostname}).
         *
         * @return {@code true} by default; {@code false} is unsafe
         */
        public boolean isVerifyHostname() {
            return verifyHostname;
        }

        /**
         * Sets whether the server's certificate must name the host of the URL ({@code coordis.tls.verify-hostname}).
         *
         * @param verifyHostname {@code true} by default; {@code false} is unsafe
         */
        public void setVerifyHostname(boolean verifyHostname) {
            this.verifyHostname = verifyHostname;
        }
    }

    /** Defaults of the LockOptions bean. */
    public static class Lock extends LockProperties {
    }

    /** Defaults of the QueueOptions bean. */
    public static class Queue extends QueueProperties {
    }

    /** Micrometer meters of the client, when the application has a MeterRegistry and coordis-micrometer. */
    public static class Metrics {
        /** Whether the client records meters (and observations, with an ObservationRegistry). */
        private boolean enabled = true;

        /**
         * Lock, election, queue and channel names that become the meters' name tag as they are; every other name is
         * tagged "other", so unbounded names (orders:42) cannot flood the registry. Default: none.
         */
        private List<String> tagNames = new ArrayList<>();

        /** Reliable queues whose depth, in-flight, delayed, dead and oldest-age gauges and settled counter are polled (tagged by name). */
        private List<String> queues = new ArrayList<>();

        /** How often the gauges of coordis.metrics.queues are polled (at least 100ms). */
        private Duration pollInterval = Duration.ofSeconds(10);

        /**
         * Whether the client records meters ({@code coordis.metrics.enabled}).
         *
         * @return {@code true} by default
         */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets whether the client records meters ({@code coordis.metrics.enabled}).
         *
         * @param enabled {@code true} by default
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /**
         * The names that become the meters' name tag as they are ({@code coordis.metrics.tag-names}).
         *
         * @return the names; empty for none
         */
        public List<String> getTagNames() {
            return tagNames;
        }

        /**
         * Sets the names that become the meters' name tag as they are ({@code coordis.metrics.tag-names}).
         *
         * @param tagNames the names; empty for none
         */
        public void setTagNames(List<String> tagNames) {
            this.tagNames = tagNames;
        }

        /**
         * The reliable queues whose figures are polled into gauges ({@code coordis.metrics.queues}).
         *
         * @return the queue names; empty for none
         */
        public List<String> getQueues() {
            return queues;
        }

        /**
         * Sets the reliable queues whose figures are polled into gauges ({@code coordis.metrics.queues}).
         *
         * @param queues the queue names; empty for none
         */
        public void setQueues(List<String> queues) {
            this.queues = queues;
        }

        /**
         * How often the queues' gauges are polled ({@code coordis.metrics.poll-interval}).
         *
         * @return the interval; 10 s by default
         */
        public Duration getPollInterval() {
            return pollInterval;
        }

        /**
         * Sets how often the queues' gauges are polled ({@code coordis.metrics.poll-interval}).
         *
         * @param pollInterval the interval; 10 s by default
         */
        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }
    }
}
