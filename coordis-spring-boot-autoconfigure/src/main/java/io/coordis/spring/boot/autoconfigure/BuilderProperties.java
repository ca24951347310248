package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.Urls;
import io.coordis.lock.LockOptions;
import io.coordis.queue.QueueOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Turns {@link CoordisProperties} into a {@link Coordis.Builder} and option values. Each bad value becomes a
 * {@link ConfigurationProblem} naming its property; URLs appear only without credentials.
 */
final class BuilderProperties {
    private static final Set<String> SCHEMES = Set.of("redis", "rediss", "redis-sentinel", "rediss-sentinel",
            "redis-cluster", "rediss-cluster", "redis-socket");
    private static final String URL_FORMS = "redis://[user:password@]host:port[/db], rediss://... for TLS, "
            + "redis-sentinel://host:port#master or redis-cluster://host:port,host:port";

    private BuilderProperties() {
    }

    /** A builder with every property of {@code properties} applied, connecting to {@code urls}. */
    static Coordis.Builder builder(CoordisProperties properties, RedisUrls urls) {
        checkUrls(urls);
        Coordis.Builder builder = Coordis.builder().urls(urls.urls());
        List<String> replicas = properties.getReplicaUrls();
        for (int i = 0; i < replicas.size(); i++) {
            checkUrl(replicas.get(i), "coordis.replica-urls[" + i + "]");
        }
        set("coordis.replica-urls", "replica URLs of the master, e.g. redis://replica-1:6379",
                () -> builder.replicaUrls(replicas));
        set("coordis.key-prefix", "a plain prefix such as billing: (or nothing)",
                () -> builder.keyPrefix(properties.getKeyPrefix() == null ? "" : properties.getKeyPrefix()));
        Duration timeout = required(properties.getCommandTimeout(), "coordis.command-timeout", "2s");
        set("coordis.command-timeout", "a duration of at least 10ms, e.g. 2s", () -> builder.commandTimeout(timeout));
        tls(properties.getTls(), builder);
        return builder;
    }

    private static void checkUrls(RedisUrls urls) {
        List<String> list = urls.urls();
        if (list.size() == 2) {
            throw new ConfigurationProblem(urls.source() + " has 2 URLs; Redlock needs a majority of independent "
                    + "masters, and 2 have no majority when one fails",
                    "Give one URL for a single Redis (coordis.urls=redis://host:6379), or three or more independent "
                            + "masters for Redlock (an odd number: coordis.urls=redis://a:6379,redis://b:6379,redis://c:6379).");
        }
        for (int i = 0; i < list.size(); i++) {
            checkUrl(list.get(i), list.size() == 1 ? urls.source() : urls.source() + "[" + i + "]");
        }
    }

    private static void checkUrl(String url, String property) {
        String fix = "Write " + property + " as " + URL_FORMS + ".";
        if (url == null || url.isBlank()) {
            throw new ConfigurationProblem(property + " is empty", fix);
        }
        int scheme = url.indexOf("://");
        if (scheme <= 0 || !SCHEMES.contains(url.substring(0, scheme).strip().toLowerCase(Locale.ROOT))) {
            throw new ConfigurationProblem(property + " is not a Redis URL: '" + Urls.redact(url) + "'", fix);
        }
        if (url.substring(scheme + 3).isBlank()) {
            throw new ConfigurationProblem(property + " names no host: '" + Urls.redact(url) + "'", fix);
        }
    }

    private static void tls(CoordisProperties.Tls tls, Coordis.Builder builder) {
        if (tls.getCa() != null) {
            Path ca = readable(tls.getCa(), "coordis.tls.ca", "the CA certificates (PEM) that signed the server's certificate");
            set("coordis.tls.ca", "the path of a PEM file with -----BEGIN CERTIFICATE----- blocks",
                    () -> builder.trustedCertificates(ca));
        }
        if ((tls.getCert() == null) != (tls.getKey() == null)) {
            String missing = tls.getCert() == null ? "coordis.tls.cert" : "coordis.tls.key";
            throw new ConfigurationProblem("coordis.tls.cert and coordis.tls.key go together, but " + missing
                    + " is not set", "Set " + missing + " too (the client's certificate chain and its PKCS#8 private "
                    + "key, both PEM files), or remove the other one.");
        }
        if (tls.getCert() != null) {
            Path cert = readable(tls.getCert(), "coordis.tls.cert", "the client's certificate chain (PEM)");
            Path key = readable(tls.getKey(), "coordis.tls.key", "the client's PKCS#8 private key (PEM)");
            set("coordis.tls.cert / coordis.tls.key", "PEM files: the certificate chain and an unencrypted PKCS#8 key",
                    () -> builder.clientCertificate(cert, key));
        }
        builder.verifyHostname(tls.isVerifyHostname());
    }

    private static Path readable(Path file, String property, String what) {
        if (!Files.exists(file)) {
            throw new ConfigurationProblem(property + ": the file " + file.toAbsolutePath() + " does not exist",
                    "Set " + property + " to the path of " + what + ", e.g. " + property + "=/etc/redis/tls/"
                            + file.getFileName() + ", or remove the property.");
        }
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new ConfigurationProblem(property + ": " + file.toAbsolutePath() + " is not a readable file",
                    "Make it readable by this process, or set " + property + " to the path of " + what + ".");
        }
        return file;
    }

    /** The {@link LockOptions} the properties describe. */
    static LockOptions lockOptions(CoordisProperties.Lock lock) {
        LockOptions options = LockOptions.defaults();
        Duration ttl = required(lock.getTtl(), "coordis.lock.ttl", "30s");
        options = option("coordis.lock.ttl", "a duration from 100ms to 30d, e.g. 30s", options, o -> o.withTtl(ttl));
        if (lock.getMaxHold() != null) {
            options = option("coordis.lock.max-hold", "a positive duration, e.g. 10m", options,
                    o -> o.withMaxHold(lock.getMaxHold()));
        }
        return options.withFair(lock.isFair());
    }

    /**
     * Checks that {@code coordis} can make fair locks, as the client decides when a lock is made (a handle only:
     * nothing is sent to Redis); a refusal (Redlock, say) becomes a problem naming {@code coordis.lock.fair}.
     */
    static void checkFair(LockOptions fair, Coordis coordis) {
        try {
            coordis.lock("fair-check", fair);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new ConfigurationProblem("coordis.lock.fair=true, but this client cannot make fair locks: "
                    + e.getMessage(), "Set coordis.lock.fair=false (the default), or point coordis.urls at one Redis "
                    + "(or a Sentinel-managed master) for fair locks.", e);
        }
    }

    /** The {@link QueueOptions} the properties describe. */
    static QueueOptions queueOptions(CoordisProperties.Queue queue) {
        QueueOptions options = QueueOptions.defaults();
        options = option("coordis.queue.max-attempts", "a number of at least 1, e.g. 5", options,
                o -> o.withMaxAttempts(queue.getMaxAttempts()));
        Duration heartbeat = required(queue.getHeartbeatTtl(), "coordis.queue.heartbeat-ttl", "10s");
        options = option("coordis.queue.heartbeat-ttl", "a duration from 300ms to 30d, e.g. 10s", options,
                o -> o.withHeartbeatTtl(heartbeat));
        Duration sweep = required(queue.getSweepInterval(), "coordis.queue.sweep-interval", "2s");
        options = option("coordis.queue.sweep-interval", "a duration from 50ms to 30d, e.g. 2s", options,
                o -> o.withSweepInterval(sweep));
        options = option("coordis.queue.slots", "a number from 1 to 1024, e.g. 16", options,
                o -> o.withSlots(queue.getSlots()));
        options = option("coordis.queue.max-message-bytes", "a number of bytes from 1 to 536870912, e.g. 1048576",
                options, o -> o.withMaxMessageBytes(queue.getMaxMessageBytes()));
        return options;
    }

    private static <T> T required(T value, String property, String example) {
        if (value == null) {
            throw new ConfigurationProblem(property + " is empty", "Set " + property + "=" + example
                    + ", or remove it for the default.");
        }
        return value;
    }

    /** What {@code setter} answers; its {@link IllegalArgumentException} becomes a problem naming {@code property}. */
    private static <T> T set(String property, String expected, Supplier<T> setter) {
        try {
            return setter.get();
        } catch (IllegalArgumentException e) {
            throw new ConfigurationProblem(property + ": " + Urls.redact(e.getMessage()),
                    "Set " + property + " to " + expected + ".", e);
        }
    }

    private static <T> T option(String property, String expected, T options, UnaryOperator<T> change) {
        return set(property, expected, () -> change.apply(options));
    }
}
