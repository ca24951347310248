package io.coordis.testkit;

import io.coordis.redis.runner.RedisBinary;
import io.coordis.redis.runner.RedisConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The {@code redis.conf} of a test kit server: what its {@link RedisServerBuilder} options say, as directives. */
final class ServerConfig {

    private ServerConfig() {
    }

    /**
     * The configuration text for a server of {@code b} on {@code port} with its files in {@code dir}.
     *
     * @param masked true for an error message: every password is written {@code ***}
     */
    static String render(RedisServerBuilder b, int port, Path dir, RedisBinary binary, boolean masked) {
        RedisConfig conf = RedisConfig.of(b.tls != null ? 0 : port,
                b.namespace != null ? b.namespace.address() : RedisServer.HOST, dir);
        if (b.namespace != null) {
            conf.line("protected-mode", "no"); // reached over the namespace's private link, not loopback
        }
        tls(conf, b, port);
        if (b.sentinelLines != null) {
            for (String[] tokens : b.sentinelLines) {
                String[] shown = tokens.clone();
                if (masked && tokens.length > 2 && tokens[1].equalsIgnoreCase("auth-pass")) {
                    shown[tokens.length - 1] = "***";
                }
                conf.line(shown);
            }
            return conf.toString();
        }
        conf.noSnapshots();
        conf.line("appendonly", b.appendOnly ? "yes" : "no");
        if (b.appendFsync != null) {
            conf.line("appendfsync", b.appendFsync);
        }
        conf.line("repl-diskless-sync-delay", "0");
        if (b.requirePass != null) {
            conf.line("requirepass", masked ? "***" : b.requirePass);
        }
        users(conf, b, masked);
        if (b.debugCommand && binary.majorVersion() >= 7) {
            conf.line("enable-debug-command", "yes");
        }
        replication(conf, b, masked);
        return conf.toString();
    }

    private static void tls(RedisConfig conf, RedisServerBuilder b, int port) {
        TestCertificates certs = b.tls != null ? b.tls : b.replicaOf != null ? b.replicaOf.tlsCertificates() : null;
        if (b.tls != null) {
            conf.line("tls-port", Integer.toString(port));
        }
        if (certs != null) {
            TestCertificates.KeyPair own = b.tls != null && b.tlsServerCertificate != null
                    ? b.tlsServerCertificate : certs.server();
            conf.line("tls-cert-file", own.certFile().toAbsolutePath().toString());
            conf.line("tls-key-file", own.keyFile().toAbsolutePath().toString());
            conf.line("tls-ca-cert-file", certs.caFile().toAbsolutePath().toString());
            conf.line("tls-auth-clients", b.tls != null && b.tlsAuthClients ? "yes" : "no");
        }
        if (b.replicaOf != null && b.replicaOf.isTls()) {
            conf.line("tls-replication", "yes");
        }
    }

    private static void users(RedisConfig conf, RedisServerBuilder b, boolean masked) {
        if (b.defaultUserRules != null) {
            List<String> tokens = new ArrayList<>(List.of("user", "default", "on", "nopass"));
            tokens.addAll(b.defaultUserPatterns);
            tokens.addAll(Arrays.asList(b.defaultUserRules.split("\\s+")));
            conf.line(tokens.toArray(new String[0]));
            conf.line("user", RedisServerBuilder.ADMIN_USER, "on", ">" + (masked ? "***" : b.adminPassword),
                    "~*", "&*", "+@all");
        }
        for (String[] u : b.aclUsers) {
            List<String> tokens = new ArrayList<>(List.of("user", u[0], "on", ">" + (masked ? "***" : u[1])));
            tokens.addAll(Arrays.asList(u).subList(2, u.length));
            conf.line(tokens.toArray(new String[0]));
        }
    }

    private static void replication(RedisConfig conf, RedisServerBuilder b, boolean masked) {
        if (b.adminPassword != null) {
            // servers of one template share the administrator: replicate as it (also a master a failover
            // turns into a replica)
            conf.line("masteruser", RedisServerBuilder.ADMIN_USER);
            conf.line("masterauth", masked ? "***" : b.adminPassword);
        }
        if (b.replicaOf != null) {
            conf.line("replicaof", b.replicaOf.host(), Integer.toString(b.replicaOf.port()));
            if (b.adminPassword == null) {
                b.replicaOf.password().ifPresent(pw -> conf.line("masterauth", masked ? "***" : pw));
            }
        }
    }
}
