package io.coordis.redis.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Binary lookup; runs {@code redis-server --version} but starts no server. */
class RedisBinaryTest {

    @AfterEach
    void clearProperties() {
        System.clearProperty(RedisBinary.SERVER_PROPERTY);
        System.clearProperty(RedisBinary.EMBEDDED_PROPERTY);
    }

    @Test
    void resolvesAnExecutableWithAVersion() {
        RedisBinary binary = RedisBinary.resolve();
        assertThat(Files.isExecutable(binary.path())).isTrue();
        assertThat(binary.version()).matches("\\d+\\.\\d+\\.\\d+");
        assertThat(binary.majorVersion()).isGreaterThanOrEqualTo(6);
    }

    @Test
    void pathBinaryIsPreferredOverEmbeddedUnlessForced() {
        if (RedisBinary.embeddedForced() || System.getenv(RedisBinary.SERVER_ENV) != null) {
            return;
        }
        RedisBinary resolved = RedisBinary.resolve();
        // when redis-server is installed it wins over the embedded copy
        if (resolved.source() == RedisBinary.Source.PATH) {
            assertThat(resolved.path().getFileName().toString()).isEqualTo("redis-server");
        }
        System.setProperty(RedisBinary.EMBEDDED_PROPERTY, "true");
        RedisBinary forced = RedisBinary.resolve();
        assertThat(forced.source()).isEqualTo(RedisBinary.Source.EMBEDDED);
        assertThat(forced.version()).startsWith("6.2.");
    }

    @Test
    void systemPropertyNamesTheBinary() {
        if (RedisBinary.embeddedForced()) {
            return;
        }
        RedisBinary any = RedisBinary.resolve();
        System.setProperty(RedisBinary.SERVER_PROPERTY, any.path().toString());
        RedisBinary viaProperty = RedisBinary.resolve();
        assertThat(viaProperty.source()).isEqualTo(RedisBinary.Source.PROPERTY);
        assertThat(viaProperty.path()).isEqualTo(any.path().toAbsolutePath());
    }

    @Test
    void missingConfiguredBinaryIsAClearError() {
        if (RedisBinary.embeddedForced()) {
            return;
        }
        System.setProperty(RedisBinary.SERVER_PROPERTY, "/no/such/redis-server");
        assertThatThrownBy(RedisBinary::resolve)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("coordis.redis.server")
                .hasMessageContaining("/no/such/redis-server")
                .hasMessageContaining("not an executable");
    }

    @Test
    void embeddedBinaryIsExtractedOnceAndExecutable() {
        RedisBinary first = RedisBinary.embedded();
        RedisBinary second = RedisBinary.embedded();
        assertThat(first.path()).isEqualTo(second.path());
        assertThat(Files.isExecutable(first.path())).isTrue();
        assertThat(first.path().getParent().getFileName().toString()).startsWith("coordis-redis-");
        assertThat(first.version()).startsWith("6.2.");
    }
}
