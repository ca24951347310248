package io.coordis.testkit;

import io.coordis.redis.runner.RedisBinary;
import java.time.Duration;

/**
 * How the test kit talks to a server of its own as administrator: over TLS when the server serves TLS only, logged
 * in with the requirepass password or as {@link RedisServerBuilder#ADMIN_USER}; and, on that footing, the runner's
 * readiness probe and shutdown request for the server. Immutable; safe from any thread.
 */
final class ServerAdmin {

    private final RedisServerBuilder config;

    ServerAdmin(RedisServerBuilder config) {
        this.config = config;
    }

    /** A logged-in administrator connection; {@code timeout} bounds the connect and every reply. */
    RespClient connect(String host, int port, Duration timeout) {
        RespClient c = open(host, port, timeout);
        try {
            login(c);
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        return c;
    }

    /** A connection not yet logged in, over TLS if the server serves TLS. */
    RespClient open(String host, int port, Duration timeout) {
        return config.tls != null
                ? RespClient.connect(host, port, timeout, config.tls.adminSslContext())
                : RespClient.connect(host, port, timeout);
    }

    /**
     * Logs {@code c} in as the test kit's administrator: with the requirepass password, or as
     * {@link RedisServerBuilder#ADMIN_USER} when the default user is restricted; nothing otherwise.
     */
    void login(RespClient c) {
        if (config.adminPassword != null) {
            c.auth(RedisServerBuilder.ADMIN_USER, config.adminPassword);
        } else if (config.requirePass != null) {
            c.auth(config.requirePass);
        }
    }

    /**
     * The readiness probe: PONG from the process just started (its PID, so not another server that took the port),
     * with {@code null} for ready; a reason while loading or answered by another process.
     *
     * @throws RespException on any other error reply, which waiting will not mend
     */
    String answers(String host, int port, long pid) {
        try (RespClient c = open(host, port, Duration.ofMillis(500))) {
            login(c);
            if (!"PONG".equals(c.command("PING"))) {
                return "no PONG";
            }
            String answered = RedisServer.parseInfo(c.command("INFO", "server")).get("process_id");
            return answered != null && Long.parseLong(answered) == pid
                    ? null : "port answered by another redis-server (pid " + answered + ")";
        } catch (RespException e) {
            if (e.code().equals("LOADING")) {
                return e.getMessage();
            }
            throw e;
        }
    }

    /** Asks the server to exit without saving ({@code SHUTDOWN NOSAVE}, {@code NOW} from Redis 7). */
    void shutdown(String host, int port, RedisBinary binary) {
        try (RespClient c = connect(host, port, Duration.ofSeconds(2))) {
            if (binary.majorVersion() >= 7) {
                c.send("SHUTDOWN", "NOSAVE", "NOW");
            } else {
                c.send("SHUTDOWN", "NOSAVE");
            }
            c.read();
        }
    }
}
