package io.coordis.internal.doctor;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class AclRulesTest {
    private static final Map<String, Set<String>> REDIS7 = Map.of(
            "read", Set.of("get", "llen", "lindex"),
            "slow", Set.of("script", "script|load", "script|flush", "client", "client|id", "client|kill"),
            "scripting", Set.of("eval", "evalsha", "script", "script|load"));
    private static final Map<String, Set<String>> REDIS62 = Map.of(
            "slow", Set.of("script", "client"));

    private static AclRules rules(String text, Map<String, Set<String>> cats) {
        return new AclRules(text, c -> cats.getOrDefault(c, Set.of()));
    }

    @Test
    void theLastMatchingRuleDecides() {
        AclRules r = rules("-@all +@read -get +script|load", REDIS7);
        assertThat(r.allows("llen")).isTrue();
        assertThat(r.allows("get")).isFalse();
        assertThat(r.allows("script|load")).isTrue();
        assertThat(r.allows("script|flush")).isFalse();
        assertThat(r.allows("set")).isFalse();

        assertThat(rules("+@all -incr", REDIS7).allows("incr")).isFalse();
        assertThat(rules("+@all -incr", REDIS7).allows("incrby")).isTrue();
        assertThat(rules("allcommands", REDIS7).allows("anything")).isTrue();
        assertThat(rules("+@all nocommands", REDIS7).allows("get")).isFalse();
    }

    @Test
    void aCommandRuleCoversItsSubcommandsAndACategoryWhatItLists() {
        assertThat(rules("+@all -client", REDIS7).allows("client|id")).isFalse();
        assertThat(rules("-@all +client", REDIS7).allows("client|kill")).isTrue();
        assertThat(rules("-@all +@slow", REDIS7).allows("client|kill")).isTrue();
        assertThat(rules("-@all +@scripting", REDIS7).allows("client|id")).isFalse();
        // Redis 6.2 lists only the command in its categories: the category covers every subcommand
        assertThat(rules("-@all +@slow", REDIS62).allows("script|load")).isTrue();
        assertThat(rules("+@all -@slow +client|id", REDIS62).allows("client|id")).isTrue();
        assertThat(rules("+@all -@slow +client|id", REDIS62).allows("client|kill")).isFalse();
    }

    @Test
    void fieldsAreReadFromAFlatReplyOrAMap() {
        assertThat(AclRules.field(java.util.List.of("flags", java.util.List.of("on"), "commands", "+@all"), "commands"))
                .isEqualTo("+@all");
        assertThat(AclRules.field(Map.of("commands", "-@all"), "commands")).isEqualTo("-@all");
        assertThat(AclRules.field(java.util.List.of("flags"), "commands")).isNull();
    }
}
