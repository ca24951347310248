package io.coordis;

import io.coordis.internal.Durations;
import io.coordis.internal.Outages;
import io.coordis.internal.Utf8;
import io.coordis.internal.redis.TlsSettings;
import io.coordis.queue.QueueOptions;
import io.coordis.signal.Signals;
import io.lettuce.core.resource.ClientResources;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The settings of a {@link Coordis} client and their checks: the methods of {@link Coordis.Builder}, which adds
 * {@code connect()} and gives them their public name. Each setter refuses a bad value at once, naming it; the
 * combination of URLs is checked when connecting.
 */
abstract class ClientSettings {
    List<String> urls = List.of();
    Duration commandTimeout = Coordis.DEFAULT_COMMAND_TIMEOUT;
    Ticker ticker = Ticker.system();
    TlsSettings tls = TlsSettings.defaults();
    List<String> replicaUrls = List.of();
    int maxSignalBytes = QueueOptions.defaults().maxMessageBytes();
    String keyPrefix = "";
    Telemetry telemetry = Telemetry.NONE;
    ClientResources clientResources;
    Replication replication = Replication.none();
    Executor callbackExecutor;

    /**
     * The Redis URL; required (or {@link #urls}).
     *
     * @param url a URL in one of the forms {@link Coordis} lists
     * @return this builder
     */
    public Coordis.Builder url(String url) {
        this.urls = Collections.singletonList(url);
        return self();
    }

    /**
     * One URL, or the URLs of N ≥ 3 independent masters for Redlock (odd N recommended).
     *
     * @param urls one URL, or three or more of independent masters
     * @return this builder
     * @throws IllegalArgumentException for an empty list
     */
    public Coordis.Builder urls(List<String> urls) {
        Objects.requireNonNull(urls, "urls must not be null");
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("at least one Redis URL is required");
        }
        this.urls = List.copyOf(urls);
        return self();
    }

    /**
     * URLs of replicas of the master given to {@link #url}, on which {@link Coordis#signals()} waiters
     * listen as well, so they still wake when the master or the link to it fails (PUBLISH is
     * replicated). Used by signals only; connected in the background. Default: none.
     *
     * @param replicaUrls the replicas' URLs
     * @return this builder
     * @throws IllegalArgumentException for a blank URL (a malformed one fails in {@link Coordis.Builder#connect()})
     */
    public Coordis.Builder replicaUrls(List<String> replicaUrls) {
        Objects.requireNonNull(replicaUrls, "replica URLs must not be null");
        for (String url : replicaUrls) {
            if (url == null || url.isBlank()) {
                throw new IllegalArgumentException("a replica URL must not be empty");
            }
        }
        this.replicaUrls = List.copyOf(replicaUrls);
        return self();
    }

    /**
     * The largest signal data, in bytes of UTF-8, that {@link Signals#signal}, {@link Signals#signalOne} and
     * {@link io.coordis.signal.Event#signal} send; larger data is refused with an
     * {@link IllegalArgumentException} before anything is sent. Pub/sub delivers every message to every
     * subscriber at once, and Redis disconnects a subscriber whose output buffer outgrows its
     * {@code client-output-buffer-limit pubsub} (32 MB by default), so big signals are best avoided: send the
     * data through a queue or a key and signal its name. Default: 1 MiB, as a queue's
     * {@link QueueOptions#maxMessageBytes()}.
     *
     * @param bytes the largest signal data, in bytes
     * @return this builder
     * @throws IllegalArgumentException unless 1 ≤ bytes ≤ 512 MiB (Redis's own limit)
     */
    public Coordis.Builder maxSignalBytes(int bytes) {
        if (bytes < 1 || bytes > 512 << 20) {
            throw new IllegalArgumentException("max signal size must be between 1 byte and 512 MiB, was " + bytes);
        }
        this.maxSignalBytes = bytes;
        return self();
    }

    /**
     * An explicit prefix put before every Redis key and pub/sub channel this client uses: the keys of locks,
     * elections, queues and events with the keys Coordis keeps beside them, the channels of signals (broadcast,
     * unicast, patterns). With the prefix {@code billing:},
     * {@code lock("orders")} is the key {@code billing:orders}, its fence {@code {billing:orders}:fence}, and
     * {@code signals().signal("done", ...)} publishes on {@code billing:done}. Names in the API stay as given
     * ({@code name()}, {@link io.coordis.signal.Signal#channel()}); {@code key()} shows the Redis key. Programs
     * in other languages sharing the objects use the prefixed names, and so does {@link Coordis#inspector()}:
     * an operator's view of Redis as it is, it lists and reads objects by their Redis names (list one
     * tenant's objects with the glob {@code billing:*}).
     *
     * <p>Meant for sharing one Redis between applications or tenants, each client with an ACL user limited to
     * its prefix: <code>~billing:* ~&#123;billing:* &amp;billing:*</code> (a name with its own {@code {hash tag}} keeps its
     * derived keys under the prefix). On Redis Cluster a prefix holding a {@code {hash tag}} would put every
     * object in one slot; such a prefix is refused. Default: none. Lock and election options may add a
     * prefix of their own after this one.
     *
     * @param prefix the prefix, e.g. {@code billing:}; empty for none
     * @return this builder
     * @throws IllegalArgumentException when the prefix holds braces or glob characters ({@code * ? [ ] \}),
     *                                  which ACL key patterns and {@code SCAN MATCH} would read as patterns,
     *                                  or is longer than 256 bytes of UTF-8
     */
    public Coordis.Builder keyPrefix(String prefix) {
        this.keyPrefix = checkPrefix(prefix);
        return self();
    }

    private static String checkPrefix(String prefix) {
        Objects.requireNonNull(prefix, "key prefix must not be null (use \"\" for none)");
        for (char c : new char[] {'{', '}', '*', '?', '[', ']', '\\'}) {
            if (prefix.indexOf(c) >= 0) {
                throw new IllegalArgumentException("key prefix '" + prefix + "' contains '" + c + "': a prefix "
                        + "may not hold braces (they would put every object in one cluster slot) or glob "
                        + "characters (ACL rules and SCAN would read them as patterns); use e.g. \"billing:\"");
            }
        }
        if (prefix.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("key prefix '" + prefix + "' contains a blank or line break; "
                    + "use e.g. \"billing:\"");
        }
        if (Utf8.length(prefix) > 256) {
            throw new IllegalArgumentException("key prefix is " + Utf8.length(prefix)
                    + " bytes long in UTF-8, over the limit of 256 bytes");
        }
        return prefix;
    }

    /**
     * The replicas that lock grants, leadership terms and queue pushes of this client wait for, unless their options
     * say otherwise ({@code LockOptions.withReplication}, {@code ElectionOptions.withReplication},
     * {@code QueueOptions.withReplication}): see {@link Replication}. Applies to single-node locks, lease elections
     * and queues; semaphores, read-write locks, legacy locks and the counter election do not wait, and a client of
     * several Redlock masters refuses it when connecting. Default: {@link Replication#none()}.
     *
     * @param replication the replicas writes wait for
     * @return this builder
     */
    public Coordis.Builder replication(Replication replication) {
        this.replication = Objects.requireNonNull(replication,
                "replication must not be null (use Replication.none() for no wait)");
        return self();
    }

    /**
     * Where the futures and notices this client hands out complete, and so where the stages chained on them run:
     * {@code acquireAsync} and {@code tryAcquireAsync} of locks, read-write locks and semaphores,
     * {@code campaignAsync}, {@code takeAsync}, {@code awaitAsync} and {@code whenSignalled} of signals, and
     * {@code lost()} of leases, permits and leaderships; the calls of {@code ElectionListener}s and {@code observe}
     * callbacks run there too, one at a time and in order for each. Never on the client's own threads, which renew
     * leases and read replies: a callback that blocks there would hold up every renewal. The interrupt of
     * {@code runLocked} and {@code whileLeader} work on a loss comes through it too. An executor set here is never
     * shut down by the client.
     *
     * <p>Default: a pool of the client's own (daemon threads named {@code coordis-callback-*}, shut down with the
     * client after running what it was handed) that runs callbacks on one thread, in order, and starts one more
     * whenever callbacks wait 100 ms behind threads that are all still in a callback: thousands of quick completions
     * cost one thread, and a callback that blocks delays the others by about 100 ms, not for as long as it blocks.
     * Not {@code ForkJoinPool.commonPool()}: it is shared with the whole JVM, a machine with two cores gives it one
     * thread, and it does not grow when a task blocks. Set an executor of your own to bound or name the threads or to
     * use virtual threads ({@code Executors.newVirtualThreadPerTaskExecutor()} on Java 21); one that is slow to
     * start tasks delays the loss notices.
     *
     * @param executor where futures complete and callbacks run; never shut down by the client
     * @return this builder
     */
    public Coordis.Builder callbackExecutor(Executor executor) {
        this.callbackExecutor = Objects.requireNonNull(executor, "callback executor must not be null");
        return self();
    }

    /**
     * Upper bound on one round trip, also the connect timeout; default 2 s, at least 10 ms.
     *
     * @param timeout the longest round trip
     * @return this builder
     */
    public Coordis.Builder commandTimeout(Duration timeout) {
        this.commandTimeout = Durations.atLeast(timeout, Duration.ofMillis(10), "command timeout");
        return self();
    }

    /**
     * The monotonic clock for deadlines; default {@link Ticker#system()}.
     *
     * @param ticker the clock; it must be monotonic and thread-safe
     * @return this builder
     */
    public Coordis.Builder ticker(Ticker ticker) {
        this.ticker = Objects.requireNonNull(ticker, "ticker must not be null");
        return self();
    }

    /**
     * For {@code rediss://} URLs: trust the CA certificates in this PEM file instead of the JVM's
     * default trust store. Default: the JVM's trust store.
     *
     * @param pemFile a file of PEM certificates
     * @return this builder
     * @throws IllegalArgumentException naming the file when it does not exist, cannot be read or holds no
     *                                  PEM certificate
     */
    public Coordis.Builder trustedCertificates(Path pemFile) {
        this.tls = tls.trusting(pemFile);
        return self();
    }

    /**
     * For {@code rediss://} URLs to servers that require client certificates ({@code tls-auth-clients yes}):
     * present the certificate chain in {@code certificateChainPem} (the client's certificate first) with the
     * unencrypted PKCS#8 private key in {@code privateKeyPem} ({@code -----BEGIN PRIVATE KEY-----}). Used by
     * every connection of the client (commands, queues, pub/sub, Sentinel, cluster nodes). Default: none.
     *
     * @param certificateChainPem a PEM file of the client's certificate, then its issuers
     * @param privateKeyPem       a PEM file of the unencrypted PKCS#8 private key
     * @return this builder
     * @throws IllegalArgumentException naming the file and what to do when a file does not exist, cannot be
     *                                  read, or is not PEM of the right kind (a PKCS#1/SEC1 key is refused with
     *                                  the command that converts it)
     */
    public Coordis.Builder clientCertificate(Path certificateChainPem, Path privateKeyPem) {
        this.tls = tls.presenting(certificateChainPem, privateKeyPem, null);
        return self();
    }

    /**
     * Like {@link #clientCertificate(Path, Path)} for an encrypted PKCS#8 key
     * ({@code -----BEGIN ENCRYPTED PRIVATE KEY-----}) and its password (copied; never shown in messages).
     *
     * @param certificateChainPem a PEM file of the client's certificate, then its issuers
     * @param privateKeyPem       a PEM file of the encrypted PKCS#8 private key
     * @param keyPassword         the key's password
     * @return this builder
     */
    public Coordis.Builder clientCertificate(Path certificateChainPem, Path privateKeyPem,
                                     char[] keyPassword) {
        this.tls = tls.presenting(certificateChainPem, privateKeyPem,
                Objects.requireNonNull(keyPassword, "key password must not be null"));
        return self();
    }

    /**
     * Whether a {@code rediss://} server's certificate must name the host in the URL (DNS name or IP address in
     * its subject alternative names); default {@code true}. {@code false} is <b>unsafe</b>: any certificate
     * from a trusted CA is then accepted for any host, so whoever holds one can pose as the server; use it only
     * for test set-ups whose certificates lack the right names. (A URL's {@code ?verifyPeer=} wins.)
     *
     * @param verify whether the certificate must name the host
     * @return this builder
     */
    public Coordis.Builder verifyHostname(boolean verify) {
        this.tls = tls.verifyingHostname(verify);
        return self();
    }

    /**
     * Where the client reports its work (acquires, leases, votes, leaderships, queue messages, signals) for metrics
     * and traces, e.g. {@code coordis-micrometer}'s {@code CoordisMetrics}. Default: {@link Telemetry#NONE}.
     *
     * @param telemetry where to report
     * @return this builder
     */
    public Coordis.Builder telemetry(Telemetry telemetry) {
        this.telemetry = Objects.requireNonNull(telemetry, "telemetry must not be null (use Telemetry.NONE for none)");
        return self();
    }

    /**
     * Lettuce's event loops, timers and command metrics to run this client's connections on, e.g. resources built
     * with a {@code MicrometerCommandLatencyRecorder} so that Lettuce's own command metrics are recorded. The only
     * Lettuce type in Coordis's API. They are used as given: the client's own resources add a reconnection delay
     * that climbs only to 1 s (Lettuce's default climbs to 30 s) and flush consolidation, which these do not get
     * unless the application sets them up itself. The client never shuts them down: their owner does, after
     * closing the client. Default: resources of the client's own, shut down with it.
     *
     * @param resources Lettuce's resources, owned by the caller
     * @return this builder
     */
    public Coordis.Builder clientResources(ClientResources resources) {
        this.clientResources = Objects.requireNonNull(resources, "client resources must not be null");
        return self();
    }

    /**
     * Checks how the settings combine, as connecting does.
     *
     * @throws IllegalArgumentException when several Redlock masters are asked to wait for replicas
     */
    void checkCombination() {
        if (urls.size() > 1 && !replication.isNone()) {
            throw new IllegalArgumentException("a client of " + urls.size() + " Redlock masters does not wait for "
                    + "replicas, but the builder asks for " + replication + ": Redlock's safety rests on a majority "
                    + "of independent masters; leave replication off (Replication.none()) for this client");
        }
    }

    private Coordis.Builder self() {
        return (Coordis.Builder) this;
    }

    /**
     * Connects with these settings; see {@link Coordis#connect(String)}.
     *
     * @return a connected client; close it when done
     */
    public Coordis connect() {
        return new Coordis(this);
    }

    /**
     * Connects with these settings, riding out transient unavailability for up to {@code wait}: while Redis is
     * down, restarting, loading its data or failing over, the connection is tried again with a jittered
     * backoff (50 ms doubling up to 1 s). For a process that may start while Redis restarts, such as a job
     * that is allowed to wait for its lock.
     *
     * @param wait how long to keep trying while Redis is unavailable
     * @return a connected client; close it when done
     * @throws IllegalArgumentException when a URL is malformed, or two URLs are given (at once)
     * @throws CoordisException         the last failure once {@code wait} is spent; at once when it is
     *                                  permanent (wrong credentials, missing permissions)
     * @throws InterruptedException     when interrupted between two tries
     */
    public Coordis connect(Duration wait) throws InterruptedException {
        Durations.notNegative(wait, "wait");
        return Outages.retrying(ticker, wait, left -> connect());
    }
}
