package io.coordis;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RequiredCommandsTest {

    static String setUserLine(String prefix) {
        return "ACL SETUSER app on >CHANGE-ME resetkeys resetchannels "
                + String.join(" ", RequiredCommands.keyPatterns(prefix)) + " "
                + RequiredCommands.aclRules(RequiredCommands.allRequiredUses());
    }

    @Test
    void theDocumentedLineIsWhatTheApiGenerates() throws Exception {
        Path doc = Path.of("..", "docs", "safety.md");
        List<String> lines = Files.readAllLines(doc);
        List<String> documented = lines.stream().filter(l -> l.startsWith("ACL SETUSER app ")).toList();
        assertThat(documented).containsExactly(setUserLine("app:"));
    }

    @Test
    void theLeastPrivilegeTestPassGrantsExactlyTheListedCommands() throws Exception {
        String file;
        try (var in = io.coordis.testkit.RedisServerBuilder.class.getResourceAsStream("least-privilege.acl")) {
            assertThat(in).as("least-privilege.acl in the test kit").isNotNull();
            file = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        List<String> rules = file.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertThat(rules).containsExactly(RequiredCommands.aclRules(java.util.EnumSet.allOf(RequiredCommands.Use.class)));
    }

    @Test
    void optionalCommandsAreNotRequired() {
        assertThat(RequiredCommands.required()).doesNotContain("client|kill", "info");
    }

    @Test
    void clusterCommandsAreRequiredOnlyOnRedisCluster() {
        assertThat(RequiredCommands.required()).doesNotContain("cluster|nodes", "asking");
        assertThat(RequiredCommands.names(RequiredCommands.clusterUses())).contains("cluster|nodes", "asking")
                .containsAll(RequiredCommands.required()).doesNotContain("client|kill", "info");
        assertThat(RequiredCommands.aclRules(RequiredCommands.allRequiredUses())).startsWith("-@all +");
    }

    @Test
    void aGlobInThePrefixIsRejectedNamingIt() {
        assertThatThrownBy(() -> RequiredCommands.keyPatterns("app*"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("app*");
    }
}
