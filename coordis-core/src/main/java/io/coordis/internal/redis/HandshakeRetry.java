package io.coordis.internal.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.CharBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * How {@link Connector} opens a connection whose handshake may lose the server's answer. Lettuce closes the channel
 * when Redis refuses the handshake (a wrong password), and on a loaded machine the close can overtake the refusal and
 * be all it reports (the thread that opened the connection was descheduled while the whole handshake ran and
 * failed). After such an attempt the server's answer is asked apart; with no refusal the connection is opened again
 * after a pause, up to {@link #ATTEMPTS} in all, while a server that really drops new connections (a TLS-only port)
 * drops every attempt. Stateless.
 */
final class HandshakeRetry {
    private static final Logger log = LoggerFactory.getLogger(HandshakeRetry.class);
    /**
     * How many times a connection is opened when each attempt ends with the channel closed during the handshake
     * and nothing from the server (see {@link RedisErrors#lostHandshakeAnswer}).
     */
    static final int ATTEMPTS = 3;
    /** The pause before opening again after such an attempt, times the attempts made: past a burst of load. */
    private static final Duration PAUSE = Duration.ofMillis(20);

    private HandshakeRetry() {
    }

    /** {@link #pipe(CompletableFuture, Supplier, Supplier)} where the server's answer cannot be asked apart. */
    static <T, C extends T> void pipe(CompletableFuture<T> f, Supplier<? extends CompletionStage<C>> open) {
        pipe(f, open, () -> CompletableFuture.completedFuture(null));
    }

    /**
     * Completes {@code f} as the stage that {@code open} starts completes; a failure to start fails it too. When the
     * handshake lost the server's answer, {@code refusal} asks it apart (the server's refusal, or {@code null} when it
     * cannot be asked or was not a refusal), and without a refusal the connection is opened again.
     */
    static <T, C extends T> void pipe(CompletableFuture<T> f, Supplier<? extends CompletionStage<C>> open,
                                      Supplier<CompletableFuture<Throwable>> refusal) {
        pipe(f, open, refusal, 1);
    }

    private static <T, C extends T> void pipe(CompletableFuture<T> f, Supplier<? extends CompletionStage<C>> open,
                                              Supplier<CompletableFuture<Throwable>> refusal, int attempt) {
        try {
            open.get().whenComplete((value, failure) -> {
                if (failure == null) {
                    f.complete(value);
                } else if (!RedisErrors.lostHandshakeAnswer(failure)) {
                    f.completeExceptionally(failure);
                } else {
                    refusal.get().whenComplete((refused, ignored) -> {
                        if (refused != null) {
                            refused.addSuppressed(failure);
                            f.completeExceptionally(refused);
                        } else if (attempt < ATTEMPTS) {
                            log.debug("a connection closed during its handshake without the server's answer; "
                                    + "trying again");
                            CompletableFuture.delayedExecutor(PAUSE.toMillis() * attempt, TimeUnit.MILLISECONDS)
                                    .execute(() -> pipe(f, open, refusal, attempt + 1));
                        } else {
                            f.completeExceptionally(failure);
                        }
                    });
                }
            });
        } catch (RuntimeException e) {
            f.completeExceptionally(e);
        }
    }

    /**
     * The server's refusal of {@code uri}'s credentials, asked on a connection of its own (on {@code client}'s
     * resources and options) whose handshake sends nothing that can fail (no credentials, no PING), so that the
     * answer comes back as a command's reply and no closing channel can overtake it; {@code null} when the server
     * accepts them, when the URL has no password (or goes through Sentinel or a Unix socket), or when nothing could
     * be asked (the server drops this connection too: a TLS-only port).
     */
    static CompletableFuture<Throwable> refusedCredentials(RedisClient client, RedisURI uri) {
        if (uri.getSocket() != null || !uri.getSentinels().isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return uri.getCredentialsProvider().resolveCredentials().toFuture().thenCompose(credentials -> {
            if (credentials == null || !credentials.hasPassword()) {
                return CompletableFuture.<Throwable>completedFuture(null);
            }
            RedisURI bare = RedisURI.builder().withHost(uri.getHost()).withPort(uri.getPort())
                    .withSsl(uri.isSsl()).withStartTls(uri.isStartTls()).withVerifyPeer(uri.getVerifyMode())
                    .withTimeout(uri.getTimeout()).build();
            RedisClient asker = RedisClient.create(client.getResources(), bare);
            asker.setOptions(client.getOptions().mutate().pingBeforeActivateConnection(false)
                    .autoReconnect(false).build());
            CharSequence password = CharBuffer.wrap(credentials.getPassword());
            CompletableFuture<Throwable> said = asker.connectAsync(StringCodec.UTF8, bare).toCompletableFuture()
                    .thenCompose(c -> (credentials.hasUsername()
                            ? c.async().auth(credentials.getUsername(), password) : c.async().auth(password))
                            .toCompletableFuture().handle((accepted, refused) -> {
                                c.closeAsync();
                                return RedisErrors.unwrap(refused);
                            }));
            said.whenComplete((answer, failure) -> asker.shutdownAsync(0, 2, TimeUnit.SECONDS));
            return said;
        }).orTimeout(Math.max(1, uri.getTimeout().toMillis()), TimeUnit.MILLISECONDS)
                .exceptionally(nothingLearnt -> null);
    }
}
