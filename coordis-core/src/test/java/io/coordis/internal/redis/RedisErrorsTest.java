package io.coordis.internal.redis;

import io.coordis.NodeUnavailableException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

class RedisErrorsTest {

    @Test
    void timeoutsAreMarkedAsSuchAndOtherUnavailabilityIsNot() {
        assertThat(RedisErrors.translate(new RedisCommandTimeoutException("Command timed out"), "h:1"))
                .isInstanceOfSatisfying(NodeUnavailableException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(RedisErrors.translate(new TimeoutException("no reply within 50 ms"), "h:1"))
                .isInstanceOfSatisfying(NodeUnavailableException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(RedisErrors.translate(new RedisConnectionException("Unable to connect to h:1"), "h:1"))
                .isInstanceOfSatisfying(NodeUnavailableException.class, e -> assertThat(e.timedOut()).isFalse());
    }

    @Test
    void aCommandDeniedInsideAScriptIsAccessDeniedLikeNoperm() {
        String inScript = "ERR The user executing the script can't run this command or subcommand script: 5a2e, "
                + "on @user_script:61.";
        assertThat(RedisErrors.translate(new io.lettuce.core.RedisCommandExecutionException(inScript), "h:1"))
                .isInstanceOf(io.coordis.AccessDeniedException.class).hasMessageContaining("can't run this command");
        assertThat(RedisErrors.translate(new io.lettuce.core.RedisCommandExecutionException(
                "NOPERM this user has no permissions to access one of the keys used as arguments"), "h:1"))
                .isInstanceOf(io.coordis.AccessDeniedException.class).hasMessageContaining("keys");
    }

    @Test
    void aDenialSaysWhetherACommandAKeyOrAChannelWasRefused() {
        java.util.Map<String, io.coordis.AccessDeniedException.Reason> cases = java.util.Map.of(
                "NOPERM this user has no permissions to run the 'get' command", io.coordis.AccessDeniedException.Reason.COMMAND,
                "NOPERM this user has no permissions to access one of the keys used as arguments", io.coordis.AccessDeniedException.Reason.KEY,
                "NOPERM No permissions to access a key", io.coordis.AccessDeniedException.Reason.KEY,
                "ERR The user executing the script can't access at least one of the keys mentioned in the command script: 5a2e",
                io.coordis.AccessDeniedException.Reason.KEY,
                "NOPERM this user has no permissions to access one of the channels used as arguments", io.coordis.AccessDeniedException.Reason.CHANNEL,
                "ERR The user executing the script can't publish to the channel mentioned in the command",
                io.coordis.AccessDeniedException.Reason.CHANNEL,
                "ERR The user executing the script can't run this command or subcommand", io.coordis.AccessDeniedException.Reason.COMMAND,
                "NOPERM something new", io.coordis.AccessDeniedException.Reason.OTHER);
        cases.forEach((error, reason) -> assertThat(RedisErrors.deniedReason(error)).as(error).isEqualTo(reason));
    }

    @Test
    void aConnectionDroppedDuringTheHandshakeSuggestsRedissEitherWayLettuceReportsIt() {
        for (String how : java.util.List.of("Connection reset", "RedisHandshakeHandler not registered")) {
            assertThat(RedisErrors.translate(new RedisConnectionException("Unable to connect to h:1",
                    new java.io.IOException(how)), "h:1")).as(how)
                    .isInstanceOf(NodeUnavailableException.class).hasMessageContaining("use a rediss:// URL");
        }
        assertThat(RedisErrors.translate(new RedisConnectionException("Unable to connect to h:1",
                new java.net.ConnectException("Connection refused")), "h:1"))
                .hasMessageNotContaining("rediss://");
    }

    @Test
    void tlsAdviceNamesTheClientBuildersSettingsAndNoCommandLineOption() {
        for (String description : java.util.List.of("Received fatal alert: certificate_required",
                "Received fatal alert: unknown_ca", "unable to find valid certification path", "something else")) {
            String advice = RedisErrors.tlsAdvice(description);
            assertThat(advice).as(description).doesNotContain("--").doesNotContain("CLI")
                    .containsAnyOf(RedisErrors.CLIENT_CERTIFICATE, RedisErrors.TRUSTED_CERTIFICATES);
        }
    }
}
