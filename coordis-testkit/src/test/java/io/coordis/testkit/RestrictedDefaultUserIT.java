package io.coordis.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A server whose default user may run only some commands, while the test kit itself logs in as administrator. */
class RestrictedDefaultUserIT {

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.of(RedisServer.builder().restrictDefaultUser("-@all +get +set"));

    @RegisterExtension
    static final RedisExtension standalone = RedisExtension.standalone();

    @Test
    void clientsWithoutCredentialsGetOnlyTheGrantedCommandsAndTheKitGetsAll() {
        RedisServer server = redis.server();
        assertThat(server.isDefaultUserRestricted()).isTrue();
        assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + server.port());
        try (RespClient anonymous = RespClient.connect(server.host(), server.port())) {
            assertThat(anonymous.command("SET", "k", "v")).isEqualTo("OK");
            assertThat(anonymous.command("GET", "k")).isEqualTo("v");
            assertThatThrownBy(() -> anonymous.command("DEL", "k")).hasMessageStartingWith("NOPERM");
            assertThatThrownBy(() -> anonymous.command("FLUSHALL")).hasMessageStartingWith("NOPERM");
        }
        assertThat(server.command("DEL", "k")).isEqualTo(1L);
        assertThat(server.command("CONFIG", "GET", "maxmemory")).isNotNull();
    }

    @Test
    void theLeastPrivilegePassRestrictsPlainServersOnlyWhenAskedFor() {
        String env = System.getenv(RedisServerBuilder.LEAST_PRIVILEGE_ENV);
        boolean on = env != null && (env.equals("1") || env.equalsIgnoreCase("true"));
        assertThat(RedisServerBuilder.leastPrivilegeRules() != null).isEqualTo(on);
        if (on) {
            assertThat(RedisServerBuilder.leastPrivilegeRules()).startsWith("-@all +").contains("+evalsha", "+publish");
        }
        assertThat(standalone.server().isDefaultUserRestricted()).as("RedisExtension.standalone()").isEqualTo(on);
        if (on) {
            try (RespClient anonymous = RespClient.connect(standalone.server().host(), standalone.server().port())) {
                assertThatThrownBy(() -> anonymous.command("FLUSHALL")).hasMessageStartingWith("NOPERM");
            }
        }
        try (RedisGroup plain = RedisGroup.masters(1, RedisServer.builder())) {
            // a group started directly is never restricted; only RedisExtension.masters applies the pass
            assertThat(plain.server(0).isDefaultUserRestricted()).isFalse();
        }
    }

    @Test
    void aPasswordAndARestrictedDefaultUserDoNotMix() {
        assertThatThrownBy(() -> RedisServer.builder().requirePass("pw").restrictDefaultUser("-@all +get"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requirepass");
        assertThatThrownBy(() -> RedisServer.builder().restrictDefaultUser(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not be empty");
    }
}
