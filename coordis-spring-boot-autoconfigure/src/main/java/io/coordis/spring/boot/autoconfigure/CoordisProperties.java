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

    public List<String> getUrls() {
        return urls;
    }

    public void setUrls(List<String> urls) {
        this.urls = urls;
    }

    public List<String> getReplicaUrls() {
        return replicaUrls;
    }

    public void setReplicaUrls(List<String> replicaUrls) {
        this.replicaUrls = replicaUrls;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    public boolean isEmbedded() {
        return embedded;
    }

    public void setEmbedded(boolean embedded) {
        this.embedded = embedded;
    }

    public Tls getTls() {
        return tls;
    }

    public Lock getLock() {
        return lock;
    }

    public Queue getQueue() {
        return queue;
    }

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

        public Path getCa() {
            return ca;
        }

        public void setCa(Path ca) {
            this.ca = ca;
        }

        public Path getCert() {
            return cert;
        }

        public void setCert(Path cert) {
            this.cert = cert;
        }

        public Path getKey() {
            return key;
        }

        public void setKey(Path key) {
            this.key = key;
        }

        public boolean isVerifyHostname() {
            return verifyHostname;
        }

        public void setVerifyHostname(boolean verifyHostname) {
            this.verifyHostname = verifyHostname;
        }
    }

    /** Defaults of the LockOptions bean. */
    public static class Lock {
        /** How long a lock lives in Redis without renewal; renewed every third of it while held. */
        private Duration ttl = Duration.ofSeconds(30);

        /** Stop renewing once a lock has been held this long, so a stuck holder cannot keep it; none by default. */
        private Duration maxHold;

        public Duration getTtl() {
            return ttl;
        }

        public void setTtl(Duration ttl) {
            this.ttl = ttl;
        }

        public Duration getMaxHold() {
            return maxHold;
        }

        public void setMaxHold(Duration maxHold) {
            this.maxHold = maxHold;
        }
    }

    /** Defaults of the QueueOptions bean. */
    public static class Queue {
        /** A message whose delivery failed this many times goes to the dead letters. */
        private int maxAttempts = 5;

        /** How long a consumer's heartbeat lives without renewal; then its in-flight messages go back. */
        private Duration heartbeatTtl = Duration.ofSeconds(10);

        /** How often consumers look for dead consumers and due delayed retries. */
        private Duration sweepInterval = Duration.ofSeconds(2);

        /** How many deliveries one consumer may hold at once (1 to 1024). */
        private int slots = 16;

        /** The largest message in bytes; larger ones are refused before anything is sent. */
        private int maxMessageBytes = 1048576;

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getHeartbeatTtl() {
            return heartbeatTtl;
        }

        public void setHeartbeatTtl(Duration heartbeatTtl) {
            this.heartbeatTtl = heartbeatTtl;
        }

        public Duration getSweepInterval() {
            return sweepInterval;
        }

        public void setSweepInterval(Duration sweepInterval) {
            this.sweepInterval = sweepInterval;
        }

        public int getSlots() {
            return slots;
        }

        public void setSlots(int slots) {
            this.slots = slots;
        }

        public int getMaxMessageBytes() {
            return maxMessageBytes;
        }

        public void setMaxMessageBytes(int maxMessageBytes) {
            this.maxMessageBytes = maxMessageBytes;
        }
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

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getTagNames() {
            return tagNames;
        }

        public void setTagNames(List<String> tagNames) {
            this.tagNames = tagNames;
        }

        public List<String> getQueues() {
            return queues;
        }

        public void setQueues(List<String> queues) {
            this.queues = queues;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }
    }
}
