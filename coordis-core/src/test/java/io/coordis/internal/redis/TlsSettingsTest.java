package io.coordis.internal.redis;

import io.coordis.testkit.TestCertificates;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class TlsSettingsTest {
    private static final Duration T = Duration.ofSeconds(1);

    @Test
    void hostnameVerificationIsOnByDefaultAndTheOptOutKeepsTheCaCheck() {
        RedisURI uri = Uris.parse("rediss://127.0.0.1:6380", T);
        TlsSettings.defaults().apply(uri);
        assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.FULL);
        TlsSettings.defaults().verifyingHostname(false).apply(uri);
        assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.CA);
    }

    @Test
    void aUrlsOwnVerifyPeerWins() {
        RedisURI uri = Uris.parse("rediss://127.0.0.1:6380?verifyPeer=NONE", T);
        TlsSettings.defaults().verifyingHostname(false).apply(uri);
        assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.NONE);
    }

    @Test
    void toStringNamesTheFilesButNeverThePasswordOrKeyMaterial() throws Exception {
        TestCertificates certs = TestCertificates.get();
        char[] password = "hunter2-secret".toCharArray();
        TlsSettings tls = TlsSettings.defaults().trusting(certs.caFile())
                .presenting(certs.certFile(), certs.keyFile(), password);
        password[0] = 'X'; // the settings hold a copy
        String shown = tls.toString();
        assertThat(shown).contains(certs.caFile().toString()).contains(certs.certFile().toString())
                .contains("with password").doesNotContain("hunter2").doesNotContain("unter2-secret");
        String key = java.nio.file.Files.readString(certs.keyFile());
        String body = key.lines().filter(l -> !l.startsWith("-----")).findFirst().orElseThrow();
        assertThat(shown).doesNotContain(body);
        assertThat(tls.hasClientCertificate()).isTrue();
        assertThat(tls.verifiesHostname()).isTrue();
    }
}
