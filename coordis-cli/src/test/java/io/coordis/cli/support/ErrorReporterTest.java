package io.coordis.cli.support;

import io.coordis.NodeVote;
import io.coordis.lock.QuorumUnavailableException;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How Redlock failures read and which exit status they get, without Redis. */
class ErrorReporterTest {

    @Test
    void tooFewVotesIsUnavailableAndNamesTheFailedNodesOnOneLine() {
        QuorumUnavailableException e = new QuorumUnavailableException("cannot lock 'x'", 2, List.of(
                new NodeVote("10.0.0.1:6379", NodeVote.Vote.ACQUIRED, ""),
                new NodeVote("10.0.0.2:6379", NodeVote.Vote.ERROR, "Redis at 10.0.0.2:6379 is unavailable:\nrefused"),
                new NodeVote("10.0.0.3:6379", NodeVote.Vote.TIMEOUT, "no reply within 50 ms")));
        assertThat(ExitCodes.of(e)).isEqualTo(ExitCodes.UNAVAILABLE);
        String line = ErrorReporter.describe(e);
        assertThat(line).doesNotContain("\n").contains("10.0.0.2:6379", "10.0.0.3:6379", "unavailable: refused")
                .endsWith("failed nodes: 10.0.0.2:6379, 10.0.0.3:6379")
                .doesNotContain("restart guard");
    }

    @Test
    void votesRefusedByTheRestartGuardComeWithAHint() {
        QuorumUnavailableException e = new QuorumUnavailableException("cannot lock 'x'", 2, List.of(
                new NodeVote("a:1", NodeVote.Vote.REFUSED_RECENT_RESTART, "up less than 30s"),
                new NodeVote("b:2", NodeVote.Vote.REFUSED_RECENT_RESTART, "up less than 30s"),
                new NodeVote("c:3", NodeVote.Vote.REFUSED_RECENT_RESTART, "up less than 30s")));
        assertThat(ErrorReporter.describe(e)).contains("a:1 refused recent restart (up less than 30s)",
                "the lock's TTL + 1s", "--no-restart-guard", "appendfsync always");
    }

    @Test
    void tlsAdviceNamesTheOptionsThatSetTheClientBuildersSettings() {
        var e = new io.coordis.NodeUnavailableException("h:1", "TLS handshake with Redis at h:1 failed: bad; check the "
                + "server's TLS settings and the CA certificate (the client builder's trustedCertificates) and client "
                + "certificate (the client builder's clientCertificate) given here", null);
        assertThat(ErrorReporter.describe(e)).contains("CA certificate (--tls-ca)",
                "client certificate (--tls-cert and --tls-key)").doesNotContain("builder");
    }
}
