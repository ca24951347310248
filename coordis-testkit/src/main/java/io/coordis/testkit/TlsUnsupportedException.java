package io.coordis.testkit;

import io.coordis.redis.runner.RedisBinary;
import java.util.Locale;

/**
 * Thrown by {@link RedisServerBuilder#start()} for a {@link RedisServerBuilder#tls() TLS} server when
 * the redis-server binary was built without TLS support. The message names the binary, so a test that
 * needs TLS fails with the reason; point {@code COORDIS_REDIS_SERVER} at a binary built with TLS (the
 * one shipped in the Maven artifact has it).
 */
public final class TlsUnsupportedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final transient RedisBinary binary;

    TlsUnsupportedException(RedisBinary binary, String startFailure) {
        super("redis-server " + binary.path() + " (" + describeVersion(binary) + ", found via " + binary.source()
                + ") does not support TLS: it was built without TLS (BUILD_TLS=yes). Point "
                + RedisBinary.SERVER_ENV + " at a TLS-capable redis-server.\nStart failure: " + startFailure);
        this.binary = binary;
    }

    /**
     * The binary that lacks TLS.
     *
     * @return the binary
     */
    public RedisBinary binary() {
        return binary;
    }

    /** True if the log and stderr output of a failed start say the binary knows no TLS. */
    static boolean matches(String logs) {
        String f = logs.toLowerCase(Locale.ROOT);
        if (f.contains("bad directive") && f.contains(">>> 'tls-")) {
            return true;
        }
        return f.contains("connection listener of tls")
                || (f.contains("tls") && (f.contains("not supported") || f.contains("missing implement")
                        || f.contains("built without")));
    }

    private static String describeVersion(RedisBinary binary) {
        try {
            return "version " + binary.version();
        } catch (RuntimeException e) {
            return "version unknown";
        }
    }
}
