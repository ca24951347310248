package io.coordis.cli;

import io.coordis.cli.support.ExitCodes;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.RespClient;
import io.coordis.testkit.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis} against a redis-server that serves TLS only and requires client certificates
 * ({@code tls-auth-clients yes}): the {@code --tls-ca/--tls-cert/--tls-key} options and the {@code COORDIS_TLS_*}
 * variables, and a refused handshake reported as exit 69 on one line.
 */
class TlsCliIT {
    private static RedisServer server;
    private static TestCertificates certs;

    @BeforeAll
    static void startServer() {
        server = RedisServer.builder().tlsAuthClients().startTls();
        certs = TestCertificates.get();
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static List<String> tlsOptions() {
        return List.of("--tls-ca", certs.caFile().toString(), "--tls-cert", certs.client().certFile().toString(),
                "--tls-key", certs.client().keyFile().toString());
    }

    @Test
    void lockRunsTheCommandOverMutualTls() {
        List<String> args = new java.util.ArrayList<>(tlsOptions());
        args.addAll(List.of("lock", "-u", server.uri(), "tls:cli", "--", "sh", "-c", "echo running; exit 4"));
        try (CliProcess cli = CliProcess.start(args.toArray(String[]::new))) {
            assertThat(cli.exitCode()).isEqualTo(4);
            assertThat(cli.stdout()).isEqualTo("running\n");
            assertThat(cli.stderr()).startsWith("coordis: acquired 'tls:cli'");
        }
        try (RespClient foreign = RespClient.connect(server)) {
            assertThat(foreign.command("EXISTS", Prefixed.key("tls:cli"))).isEqualTo(0L);
        }
    }

    @Test
    void queuePushAndPopOverMutualTlsWithOptionsAfterTheSubcommandOrFromTheEnvironment() {
        InProcess cli = new InProcess();
        List<String> push = new java.util.ArrayList<>(List.of("queue", "push", "-u", server.uri()));
        push.addAll(tlsOptions());
        push.addAll(List.of("tls:jobs", "a", "b"));
        assertThat(cli.run(push.toArray(String[]::new))).as(cli.err()).isEqualTo(0);
        assertThat(cli.out()).isEqualTo("2\n");
        Map<String, String> env = Map.of(CoordisCommand.TLS_CA_ENV, certs.caFile().toString(),
                CoordisCommand.TLS_CERT_ENV, certs.client().certFile().toString(),
                CoordisCommand.TLS_KEY_ENV, certs.client().keyFile().toString());
        assertThat(cli.run(env, "queue", "pop", "-u", server.uri(), "tls:jobs")).as(cli.err()).isEqualTo(0);
        assertThat(cli.out()).isEqualTo("a\n");
        try (RespClient foreign = RespClient.connect(server)) {
            assertThat(foreign.command("LRANGE", Prefixed.key("tls:jobs"), "0", "-1")).isEqualTo(List.of("b"));
        }
    }

    @Test
    void serverCertificateOfAnotherCaExits69WithOneLine() {
        try (CliProcess cli = CliProcess.start("--tls-ca", certs.otherCaFile().toString(),
                "--tls-cert", certs.client().certFile().toString(), "--tls-key", certs.client().keyFile().toString(),
                "lock", "-u", server.uri(), "tls:refused", "--", "true")) {
            assertThat(cli.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
            assertThat(cli.stdout()).isEmpty();
            assertThat(cli.stderr()).hasLineCount(1).contains(server.address()).contains("TLS handshake")
                    .contains("not signed by a trusted CA").contains("--tls-ca").doesNotContain("Exception");
        }
    }

    @Test
    void missingClientCertificateExits69NamingWhatToGive() {
        InProcess cli = new InProcess();
        int code = cli.run("queue", "pop", "-u", server.uri(), "--tls-ca", certs.caFile().toString(), "tls:q");
        assertThat(code).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(cli.err()).hasLineCount(1).contains("requires a client certificate").contains("--tls-cert");
    }

    @Test
    void badTlsOptionsAreUsageErrorsNamingTheFile() {
        InProcess cli = new InProcess();
        assertThat(cli.run("--tls-cert", certs.client().certFile().toString(), "queue", "pop", "-u", server.uri(), "q"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).contains("--tls-cert was given without --tls-key");
        assertThat(cli.run("--tls-ca", "/no/such/ca.pem", "queue", "pop", "-u", server.uri(), "q"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).contains("/no/such/ca.pem").contains("does not exist");
        assertThat(cli.run(Map.of(CoordisCommand.TLS_CERT_ENV, certs.client().certFile().toString(),
                        CoordisCommand.TLS_KEY_ENV, certs.client().certFile().toString()),
                "queue", "pop", "-u", server.uri(), "q")).isEqualTo(ExitCodes.USAGE);
        assertThat(cli.err()).contains(certs.client().certFile().toString()).contains("looks like a certificate");
    }
}
