package io.coordis;

import io.coordis.election.CounterElection;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.inspect.LockState;
import io.coordis.inspect.QueueState;
import io.coordis.internal.ClientTimer;
import io.coordis.internal.Timer;
import io.coordis.internal.queue.Queues;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.RedisNode;
import io.coordis.internal.redis.TlsSettings;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.queue.Consumer;
import io.coordis.queue.Delivery;
import io.coordis.queue.Queue;
import io.coordis.queue.QueueOptions;
import io.coordis.queue.ReliableQueue;
import io.coordis.signal.Event;
import io.coordis.signal.Signal;
import io.coordis.signal.Signals;
import io.coordis.signal.Waiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@code rediss://} URLs against redis-servers that serve TLS only: without and with client certificates
 * ({@code tls-auth-clients yes}), every primitive over TLS, and each way a TLS connection can be refused failing
 * fast with a {@link NodeUnavailableException} that names the node and the cause.
 */
class TlsIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    /** How much later than the command timeout a refused connection may fail (handshake, scheduling on 2 cores). */
    private static final Duration SLACK = Duration.ofSeconds(1);
    private static TestCertificates certs;
    private static RedisServer server;
    /** {@code tls-auth-clients yes}: refuses clients without a certificate of the test CA. */
    private static RedisServer mutual;
    /** With {@link #mutual}, the three masters of the Redlock test. */
    private static final List<RedisServer> redlock = new ArrayList<>();
    private static RedisServer otherCaServer;
    private static RedisServer ipOnlyServer;

    @BeforeAll
    static void startTlsServers() {
        // A binary without TLS support fails here with a message naming it (in CI): rediss:// is a promised feature.
        server = RedisServer.builder().startTls();
        certs = TestCertificates.get();
        mutual = RedisServer.builder().tlsAuthClients().startTls();
        redlock.add(mutual);
        redlock.add(RedisServer.builder().tlsAuthClients().startTls());
        redlock.add(RedisServer.builder().tlsAuthClients().startTls());
        otherCaServer = RedisServer.builder().tlsServerCertificate(certs.serverOfOtherCa()).tlsAuthClients().startTls();
        ipOnlyServer = RedisServer.builder().tlsServerCertificate(certs.serverForIpOnly()).tlsAuthClients().startTls();
        System.out.printf("TlsIT: redis-server %s (%s)%n", mutual.version(), mutual.binary());
    }

    @AfterAll
    static void stopServers() {
        for (RedisServer s : new RedisServer[] {server, redlock.size() > 1 ? redlock.get(1) : null,
                redlock.size() > 2 ? redlock.get(2) : null, mutual, otherCaServer, ipOnlyServer}) {
            if (s != null) {
                s.close();
            }
        }
    }

    /** A client of {@code url} trusting the test CA and presenting {@code client}. */
    private static Coordis.Builder withCertificate(String url, TestCertificates.KeyPair client) {
        return TestClients.builder().url(url).commandTimeout(TIMEOUT).trustedCertificates(certs.caFile())
                .clientCertificate(client.certFile(), client.keyFile());
    }

    private static String valueOf(String key) {
        try (RespClient client = RespClient.connect(server)) {
            return (String) client.command("GET", key);
        }
    }

    @Test
    void redissUrlAcquiresAndReleasesALock() {
        assertThat(server.uri()).startsWith("rediss://127.0.0.1:");
        try (Coordis coordis = TestClients.connect(server.uri() + "?verifyPeer=NONE")) {
            assertThat(coordis.address()).isEqualTo(server.address());
            Lease lease = coordis.lock("tls:lock").tryAcquire().orElseThrow();
            assertThat(valueOf(lease.key())).isEqualTo(lease.token());
            assertThat(lease.release()).isTrue();
            assertThat(valueOf(lease.key())).isNull();
        }
    }

    @Test
    void plainUrlToTheTlsPortFailsAsNodeUnavailableWithinTheTimeout() {
        String url = "redis://" + server.address();
        long start = System.nanoTime();
        Throwable t = catchThrowable(() -> {
            try (Coordis coordis = TestClients.builder().url(url).commandTimeout(TIMEOUT).connect()) {
                coordis.lock("tls:plain").tryAcquire();
            }
        });
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.printf("TlsIT: plain redis:// to the TLS port failed after %d ms with %s%n", took.toMillis(), t);
        assertThat(t).isInstanceOf(NodeUnavailableException.class).hasMessageContaining(server.address());
        assertThat(took).isLessThan(TIMEOUT.plusMillis(500));
    }

    @Test
    void certificateOfAnUnknownCaIsRejectedByDefault() {
        long start = System.nanoTime();
        Throwable t = catchThrowable(() -> TestClients.builder().url(server.uri()).commandTimeout(TIMEOUT).connect()
                .close());
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.printf("TlsIT: rediss:// with peer verification failed after %d ms with %s%n", took.toMillis(), t);
        assertThat(t).isInstanceOf(NodeUnavailableException.class).hasMessageContaining(server.address())
                .hasMessageContaining("TLS handshake").hasMessageContaining("CA certificate");
        assertThat(took).isLessThan(TIMEOUT.plusMillis(500));
    }

    @Test
    void trustingTheServersCaVerifiesThePeer() {
        try (Coordis coordis = TestClients.builder().url(server.uri())
                .trustedCertificates(server.tlsCaFile().orElseThrow()).connect()) {
            Lease lease = coordis.lock("tls:verified").tryAcquire().orElseThrow();
            assertThat(valueOf(lease.key())).isEqualTo(lease.token());
            assertThat(lease.release()).isTrue();
        }
    }

    @Test
    void missingCertificateFileIsABadArgument() {
        Throwable t = catchThrowable(() -> Coordis.builder().trustedCertificates(java.nio.file.Path.of("/no/such/ca.pem")));
        assertThat(t).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("/no/such/ca.pem");
    }

    @Test
    void lockWithFencingOverMutualTls() throws Exception {
        try (Coordis coordis = withCertificate(mutual.uri(), certs.client()).connect()) {
            Lease first = coordis.lock("tls:fenced").tryAcquire().orElseThrow();
            assertThat(valueOf(mutual, first.key())).isEqualTo(first.token());
            assertThat(coordis.lock("tls:fenced").tryAcquire()).isEmpty();
            assertThat(first.extend(Duration.ofSeconds(5))).isTrue();
            assertThat(first.release()).isTrue();
            Lease second = coordis.lock("tls:fenced").acquire(Duration.ofSeconds(2)).orElseThrow();
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(second.release()).isTrue();
            assertThat(valueOf(mutual, first.key())).isNull();
        }
    }

    @Test
    void redlockOverThreeMutualTlsNodes() throws Exception {
        Coordis.Builder b = TestClients.builder().urls(redlock.stream().map(RedisServer::uri).toList())
                .commandTimeout(TIMEOUT).trustedCertificates(certs.caFile())
                .clientCertificate(certs.client().certFile(), certs.client().keyFile());
        try (Coordis coordis = b.connect()) {
            // servers just started: the restart guard would refuse their votes for a TTL; TLS on a busy machine is slow
            LockOptions options = LockOptions.defaults().withRestartGuard(false).withNodeTimeout(Duration.ofMillis(500));
            Lease lease = coordis.lock("tls:redlock", options).tryAcquire().orElseThrow();
            // a node that answers after the majority decided is not waited for (busy machine): it still takes the key
            assertThat(lease.votes()).hasSize(3).allMatch(v -> v.vote() == NodeVote.Vote.ACQUIRED
                    || v.vote() == NodeVote.Vote.NOT_AWAITED);
            assertThat(lease.votes()).filteredOn(v -> v.vote() == NodeVote.Vote.ACQUIRED).hasSizeGreaterThanOrEqualTo(2);
            for (RedisServer node : redlock) {
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(2))
                        .untilAsserted(() -> assertThat(valueOf(node, Prefixed.key("tls:redlock")))
                                .isEqualTo(lease.token()));
            }
            assertThat(coordis.lock("tls:redlock", options).tryAcquire()).isEmpty();
            assertThat(lease.release()).isTrue();
            for (RedisServer node : redlock) {
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(2))
                        .untilAsserted(() -> assertThat(valueOf(node, Prefixed.key("tls:redlock"))).isNull());
            }
        }
    }

    @Test
    void signalsOverMutualTlsPubSub() throws Exception {
        try (Coordis coordis = withCertificate(mutual.uri(), certs.client()).connect();
             Coordis other = withCertificate(mutual.uri(), certs.client()).connect()) {
            Signals signals = coordis.signals();
            try (Waiter broadcast = signals.waiter("tls:chan");
                 Waiter unicast = signals.unicastWaiter("tls:one:")) {
                assertThat(other.signals().signal("tls:chan", "hello")).isEqualTo(1);
                assertThat(broadcast.await(Duration.ofSeconds(5))).contains(new Signal("tls:chan", "hello"));
                assertThat(other.signals().signalOne("tls:one:", "just-you")).isEqualTo(1);
                assertThat(unicast.await(Duration.ofSeconds(5)).map(Signal::data)).contains("just-you");
            }
            Thread waiting = new Thread(() -> {
                try {
                    for (int i = 0; i < 50 && other.signals().signal("tls:later", "late") == 0; i++) {
                        Thread.sleep(100);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            waiting.start();
            Optional<Signal> awaited = signals.await("tls:later", Duration.ofSeconds(10));
            waiting.join();
            assertThat(awaited.map(Signal::data)).contains("late");
        }
    }

    @Test
    void leaseElectionOverMutualTls() throws Exception {
        try (Coordis a = withCertificate(mutual.uri(), certs.client()).connect();
             Coordis b = withCertificate(mutual.uri(), certs.client()).connect();
             LeaderElection first = a.election("tls:election");
             LeaderElection second = b.election("tls:election")) {
            Leadership leading = first.campaign(Duration.ofSeconds(5)).orElseThrow();
            assertThat(second.campaign(Duration.ofMillis(300))).isEmpty();
            assertThat(second.leader().map(l -> l.id())).contains(first.candidateId());
            assertThat(first.resign()).isTrue();
            Leadership next = second.campaign(Duration.ofSeconds(5)).orElseThrow();
            assertThat(next.term()).isGreaterThan(leading.term());
        }
    }

    @Test
    void reliableQueueAndInspectorOverMutualTls() throws Exception {
        try (Coordis coordis = withCertificate(mutual.uri(), certs.client()).connect()) {
            ReliableQueue queue = coordis.reliableQueue("tls:jobs");
            queue.push("job-1");
            queue.push("job-2");
            try (Consumer consumer = queue.consumer()) {
                Delivery d = consumer.take(Duration.ofSeconds(5)).orElseThrow();
                assertThat(d.text()).isEqualTo("job-1");
                QueueState state = coordis.inspector().queue(Prefixed.key("tls:jobs")).orElseThrow();
                assertThat(state.depth()).isEqualTo(1);
                assertThat(state.inFlight()).isEqualTo(1);
                assertThat(d.ack().done()).isTrue();
                assertThat(consumer.take(Duration.ofSeconds(5)).orElseThrow().ack().done()).isTrue();
            }
            assertThat(queue.stats().depth()).isZero();
            assertThat(queue.stats().inFlight()).isZero();
            Lease lease = coordis.lock("tls:inspected").tryAcquire().orElseThrow();
            LockState lock = coordis.inspector().lock(Prefixed.key("tls:inspected")).orElseThrow();
            assertThat(lock.token()).contains(lease.token());
            lease.release();
        }
    }

    @Test
    void plainQueueOverMutualTls() throws Exception {
        try (Coordis coordis = withCertificate(mutual.uri(), certs.client()).connect();
             Coordis other = withCertificate(mutual.uri(), certs.client()).connect()) {
            Queue queue = coordis.queue("tls:plain-queue");
            byte[] binary = {0, (byte) 0xff, (byte) 0xc3, 0x28, '\r', '\n'}; // not UTF-8: bytes pass through as they are
            assertThat(queue.push(binary)).isEqualTo(1);
            assertThat(queue.push("text")).isEqualTo(2);
            assertThat(queue.pop()).hasValueSatisfying(b -> assertThat(b).containsExactly(binary));
            assertThat(queue.pop().map(String::new)).contains("text");
            assertThat(queue.pop()).isEmpty();

            assertThat(queue.pushAll(List.of(bytes("b1"), bytes("b2"), bytes("b3")))).isEqualTo(3);
            assertThat(queue.depth()).isEqualTo(3);
            assertThat(queue.pop(2)).extracting(String::new).containsExactly("b1", "b2");
            assertThat(queue.pop(5)).extracting(String::new).containsExactly("b3");
            assertThat(queue.pop(5)).isEmpty();

            // a blocking pop on its own TLS connection wakes on a push by another TLS client
            CompletableFuture<Optional<byte[]>> popped = CompletableFuture.supplyAsync(() -> {
                try {
                    return queue.pop(Duration.ofSeconds(10));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitBlockedClients(mutual, 1);
            long pushed = System.nanoTime();
            assertThat(other.queue("tls:plain-queue").push("wake-up")).isEqualTo(1);
            assertThat(popped.get(10, TimeUnit.SECONDS).map(String::new)).contains("wake-up");
            assertThat(Duration.ofNanos(System.nanoTime() - pushed)).isLessThan(Duration.ofSeconds(2));

            // the seed's safe pop, blocking: BLMOVE into a processing list, then LREM
            other.queue("tls:plain-queue").push("kept");
            Optional<byte[]> moved = queue.moveTo("tls:plain-queue:processing", Duration.ofSeconds(5));
            assertThat(moved.map(String::new)).contains("kept");
            assertThat(queue.remove("tls:plain-queue:processing", moved.orElseThrow())).isTrue();
            assertThat(queue.depth()).isZero();
            assertThat(queue.pop(Duration.ofMillis(100))).isEmpty();
        }
    }

    @Test
    void legacyLockOverMutualTls() throws Exception {
        LockOptions options = LockOptions.defaults().withTtl(Duration.ofSeconds(10));
        try (Coordis coordis = withCertificate(mutual.uri(), certs.client()).connect();
             Coordis other = withCertificate(mutual.uri(), certs.client()).connect()) {
            Lease first = coordis.legacyLock("tls:legacy", options).tryAcquire().orElseThrow();
            // the classic SETNX format: the value is the expiry in Unix milliseconds, the lease's token
            assertThat(valueOf(mutual, Prefixed.key("tls:legacy"))).isEqualTo(first.token()).matches("\\d+");
            assertThat(Long.parseLong(first.token())).isGreaterThan(System.currentTimeMillis());
            assertThat(other.legacyLock("tls:legacy", options).tryAcquire()).isEmpty();
            assertThat(first.extend(Duration.ofSeconds(20))).isTrue();
            assertThat(Long.parseLong(valueOf(mutual, Prefixed.key("tls:legacy"))))
                    .isGreaterThan(Long.parseLong(first.token()));
            assertThat(first.release()).isTrue();
            assertThat(valueOf(mutual, Prefixed.key("tls:legacy"))).isNull();
            Lease second = other.legacyLock("tls:legacy", options).acquire(Duration.ofSeconds(2)).orElseThrow();
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(second.release()).isTrue();
        }
    }

    @Test
    void counterElectionOverMutualTls() throws Exception {
        Duration term = Duration.ofSeconds(5);
        try (Coordis a = withCertificate(mutual.uri(), certs.client()).connect();
             Coordis b = withCertificate(mutual.uri(), certs.client()).connect();
             RespClient raw = RespClient.connect(mutual)) {
            CounterElection leader = a.counterElection("tls:counter", term);
            CounterElection follower = b.counterElection("tls:counter", term);
            assertThat(leader.round()).as("first INCR answers 1").isTrue();
            assertThat(leader.isLeader()).isTrue();
            assertThat(follower.round()).isFalse();
            assertThat(leader.round()).as("the incumbent keeps leading").isTrue();
            assertThat(follower.isLeader()).isFalse();
            assertThat(leader.remembered()).isEqualTo(3)
                    .isEqualTo(Long.parseLong(valueOf(mutual, Prefixed.key("tls:counter"))));
            assertThat((Long) raw.command("TTL", Prefixed.key("tls:counter"))).isBetween(1L, term.toSeconds());
            leader.stepDown();
            assertThat(leader.isLeader()).isFalse();
            assertThat(leader.remembered()).isZero();
            assertThat(leader.round()).as("a candidate that stepped down does not lead while the key lives").isFalse();
            // the key gone (its term ran out), the next round starts a new election
            raw.command("DEL", Prefixed.key("tls:counter"));
            assertThat(follower.round()).isTrue();
            assertThat(follower.remembered()).isEqualTo(1);
        }
    }

    @Test
    void latchedEventOverMutualTls() throws Exception {
        try (Coordis coordis = withCertificate(mutual.uri(), certs.client()).connect();
             Coordis other = withCertificate(mutual.uri(), certs.client()).connect()) {
            Event event = coordis.signals().event("tls:event", Duration.ofSeconds(30));
            Event seen = other.signals().event("tls:event", Duration.ofSeconds(30));
            assertThat(event.peek()).isEmpty();
            assertThat(seen.await(Duration.ofMillis(50))).isEmpty();
            try (Waiter waiting = seen.waiter()) {
                assertThat(waiting.poll()).isEmpty();
                assertThat(event.signal("deployed")).isEqualTo(1);
                assertThat(waiting.await(Duration.ofSeconds(5))).contains(new Signal("tls:event", "deployed"));
            }
            // latched: a waiter that comes after the signal returns at once
            assertThat(seen.await(Duration.ofSeconds(5)).map(Signal::data)).contains("deployed");
            assertThat(seen.peek()).contains("deployed");
            assertThat(event.clear()).isTrue();
            assertThat(seen.peek()).isEmpty();
            assertThat(event.clear()).isFalse();
        }
    }

    @Test
    void plainQueueConnectionsAreRefusedFast() throws Exception {
        TlsSettings client = TlsSettings.defaults().trusting(certs.caFile())
                .presenting(certs.client().certFile(), certs.client().keyFile(), null);
        assertQueueRefusedFast("redis://" + mutual.address(), client, "rediss://");
        assertQueueRefusedFast(mutual.uri(), TlsSettings.defaults().trusting(certs.otherCaFile())
                .presenting(certs.client().certFile(), certs.client().keyFile(), null), "not signed by a trusted CA");
        assertQueueRefusedFast(mutual.uri(), TlsSettings.defaults().trusting(certs.caFile())
                .presenting(certs.clientOfOtherCa().certFile(), certs.clientOfOtherCa().keyFile(), null),
                "refused this client's certificate");
    }

    /**
     * The plain queue's own connections (binary list commands, and the blocking pop's dedicated one) to {@code url}
     * fail with a {@link NodeUnavailableException} naming {@link #mutual} and containing {@code cause} within the
     * command timeout plus {@link #SLACK}, however long the pop would wait, and write nothing. The node is opened
     * without waiting for its command connection, which would otherwise fail first.
     */
    private static void assertQueueRefusedFast(String url, TlsSettings tls, String cause) throws Exception {
        try (Timer timer = new ClientTimer(Ticker.system());
             RedisNode node = RedisNode.open(url, TIMEOUT, tls, null, timer)) {
            Queue queue = new Queues(node, Namespace.of(Prefixed.prefix()), timer, Telemetry.NONE)
                    .plain("tls:refused-queue", QueueOptions.defaults());
            // a refused TLS handshake ends a wait at once; a plain client at a TLS port sees connections closed, which
            // a killed server shows too, so its waits run out first (a short one here)
            Duration wait = url.startsWith("rediss://") ? Duration.ofSeconds(5) : Duration.ofMillis(100);
            List<QueueCall> calls = List.of(() -> queue.push("never"), () -> queue.pop(wait),
                    () -> queue.pop(3), () -> queue.moveTo("tls:refused-queue:processing", wait));
            for (QueueCall call : calls) {
                long start = System.nanoTime();
                Throwable t = catchThrowable(call::run);
                Duration took = Duration.ofNanos(System.nanoTime() - start);
                System.out.printf("TlsIT: queue over %s refused after %d ms with %s%n", url, took.toMillis(), t);
                assertThat(t).isInstanceOf(NodeUnavailableException.class).hasMessageContaining(mutual.address())
                        .hasMessageContaining(cause);
                assertThat(((NodeUnavailableException) t).node()).contains(mutual.address());
                assertThat(took).isLessThan(TIMEOUT.plus(SLACK));
            }
        }
        try (RespClient raw = RespClient.connect(mutual)) {
            assertThat(raw.command("EXISTS", Prefixed.key("tls:refused-queue"))).isEqualTo(0L);
        }
    }

    private interface QueueCall {
        Object run() throws Exception;
    }

    private static void awaitBlockedClients(RedisServer target, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (Integer.parseInt(target.info("clients").getOrDefault("blocked_clients", "0")) < count) {
            assertThat(System.nanoTime()).as("%d clients blocked on %s within 5 s", count, target).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void encryptedClientKeyWithItsPassword(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path encrypted = dir.resolve("client-enc.key");
        Process p = new ProcessBuilder("openssl", "pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in",
                certs.client().keyFile().toString(), "-out", encrypted.toString(), "-passout", "pass:k3y-pw")
                .redirectErrorStream(true).start();
        assertThat(p.waitFor()).as(new String(p.getInputStream().readAllBytes())).isZero();
        try (Coordis coordis = TestClients.builder().url(mutual.uri()).trustedCertificates(certs.caFile())
                .clientCertificate(certs.client().certFile(), encrypted, "k3y-pw".toCharArray()).connect()) {
            assertThat(coordis.lock("tls:encrypted-key").tryAcquire()).isPresent();
        }
        Throwable wrong = catchThrowable(() -> Coordis.builder().url(mutual.uri()).trustedCertificates(certs.caFile())
                .clientCertificate(certs.client().certFile(), encrypted, "not-the-pw".toCharArray()).connect().close());
        assertThat(wrong).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(encrypted.toString())
                .hasMessageContaining("password").hasMessageNotContaining("not-the-pw");
    }

    @Test
    void clientCertificateOfAnotherCaIsRefusedByTheServer() {
        assertThat(assertRefusedFast(mutual, () -> withCertificate(mutual.uri(), certs.clientOfOtherCa())))
                .hasMessageContaining("refused this client's certificate");
    }

    @Test
    void expiredClientCertificateIsRefusedByTheServer() {
        assertThat(assertRefusedFast(mutual, () -> withCertificate(mutual.uri(), certs.expiredClient())))
                .hasMessageContaining("expired");
    }

    @Test
    void missingClientCertificateIsRefusedByTheServer() {
        assertThat(assertRefusedFast(mutual, () -> TestClients.builder().url(mutual.uri()).commandTimeout(TIMEOUT)
                .trustedCertificates(certs.caFile()))).hasMessageContaining("requires a client certificate");
    }

    @Test
    void serverCertificateOfAnUntrustedCaIsRefusedByTheClient() {
        Throwable t = assertRefusedFast(otherCaServer, () -> withCertificate(otherCaServer.uri(), certs.client()));
        assertThat(t).hasMessageContaining("TLS handshake").hasMessageContaining("not signed by a trusted CA");
        // trusting the other CA, the same server is fine
        try (Coordis coordis = TestClients.builder().url(otherCaServer.uri()).trustedCertificates(certs.otherCaFile())
                .clientCertificate(certs.client().certFile(), certs.client().keyFile()).connect()) {
            assertThat(coordis.lock("tls:other-ca").tryAcquire()).isPresent();
        }
    }

    @Test
    void serverCertificateForAnotherHostNameIsRefusedUnlessVerificationIsTurnedOff() throws Exception {
        String byName = "rediss://localhost:" + ipOnlyServer.port();
        Throwable t = assertRefusedFast(ipOnlyServer, () -> withCertificate(byName, certs.client()));
        assertThat(t).hasMessageContaining("localhost:" + ipOnlyServer.port()).hasMessageContaining("TLS handshake")
                .hasMessageContaining("does not name the host");
        // by its IP address, which the certificate names, verification passes
        try (Coordis coordis = withCertificate(ipOnlyServer.uri(), certs.client()).connect()) {
            assertThat(coordis.lock("tls:by-ip").tryAcquire()).isPresent();
        }
        // the documented (unsafe) opt-out accepts the certificate for the wrong name, still checking the CA
        try (Coordis coordis = withCertificate(byName, certs.client()).verifyHostname(false).connect()) {
            assertThat(coordis.lock("tls:by-name").tryAcquire()).isPresent();
        }
    }

    @Test
    void plainUrlToAMutualTlsPortFailsFast() {
        assertThat(assertRefusedFast(mutual, () -> withCertificate("redis://" + mutual.address(), certs.client())))
                .hasMessageContaining("rediss://");
    }

    @Test
    void badCertificateFilesAreRefusedNamingTheFile() throws Exception {
        Path dir = Files.createTempDirectory("coordis-tls-bad-");
        try {
            Path notPem = Files.writeString(dir.resolve("not.pem"), "hello");
            Path sec1 = Files.writeString(dir.resolve("sec1.key"), "-----BEGIN EC PRIVATE KEY-----\nAAAA\n"
                    + "-----END EC PRIVATE KEY-----\n");
            Path encrypted = Files.writeString(dir.resolve("enc.key"), "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n"
                    + "-----END ENCRYPTED PRIVATE KEY-----\n");
            Path cert = certs.client().certFile();
            Path key = certs.client().keyFile();
            assertThat(catchThrowable(() -> Coordis.builder().clientCertificate(dir.resolve("none.crt"), key)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("none.crt")
                    .hasMessageContaining("does not exist");
            assertThat(catchThrowable(() -> Coordis.builder().clientCertificate(notPem, key)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(notPem.toString())
                    .hasMessageContaining("no PEM certificate");
            assertThat(catchThrowable(() -> Coordis.builder().clientCertificate(key, key)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("looks like a private key");
            assertThat(catchThrowable(() -> Coordis.builder().clientCertificate(cert, cert)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("looks like a certificate");
            assertThat(catchThrowable(() -> Coordis.builder().clientCertificate(cert, sec1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(sec1.toString())
                    .hasMessageContaining("openssl pkcs8 -topk8");
            assertThat(catchThrowable(() -> Coordis.builder().clientCertificate(cert, encrypted)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("encrypted");
            assertThat(catchThrowable(() -> Coordis.builder().trustedCertificates(notPem)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(notPem.toString());
            // a key that does not belong to the certificate fails when connecting, before anything is sent
            Path otherKey = certs.clientOfOtherCa().keyFile();
            char[] secret = "s3cret-pw".toCharArray();
            Throwable mismatch = catchThrowable(() -> Coordis.builder().url(mutual.uri()).trustedCertificates(certs.caFile())
                    .clientCertificate(cert, otherKey).connect().close());
            assertThat(mismatch).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(cert.toString())
                    .hasMessageContaining(otherKey.toString());
            Throwable withPassword = catchThrowable(() -> Coordis.builder().url(mutual.uri())
                    .clientCertificate(cert, encrypted, secret).connect().close());
            assertThat(withPassword).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(encrypted.toString())
                    .hasMessageNotContaining("s3cret-pw");
        } finally {
            try (var files = Files.list(dir)) {
                files.forEach(f -> f.toFile().delete());
            }
            Files.delete(dir);
        }
    }

    private interface BuilderSupplier {
        Coordis.Builder get();
    }

    /**
     * Connecting with {@code builder} and locking fails with a {@link NodeUnavailableException} naming the node
     * within the command timeout plus {@link #SLACK}; afterwards the server still serves good clients.
     */
    private static Throwable assertRefusedFast(RedisServer target, BuilderSupplier builder) {
        long start = System.nanoTime();
        Throwable t = catchThrowable(() -> {
            try (Coordis coordis = builder.get().connect()) {
                coordis.lock("tls:refused").tryAcquire();
            }
        });
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        System.out.printf("TlsIT: refused after %d ms with %s%n", took.toMillis(), t);
        assertThat(t).isInstanceOf(NodeUnavailableException.class).hasMessageContaining(":" + target.port());
        assertThat(((NodeUnavailableException) t).node()).isPresent();
        assertThat(took).isLessThan(TIMEOUT.plus(SLACK));
        assertThat(valueOf(target, Prefixed.key("tls:refused"))).isNull();
        return t;
    }

    private static String valueOf(RedisServer target, String key) {
        try (RespClient client = RespClient.connect(target)) {
            return (String) client.command("GET", key);
        }
    }
}
