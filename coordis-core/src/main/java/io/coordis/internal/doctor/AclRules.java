package io.coordis.internal.doctor;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Evaluates a user's command rules as {@code ACL GETUSER} reports them ({@code "-@all +get +script|load"},
 * {@code "+@all -incr"}): left to right, the last rule that matches a command decides. A rule on a command
 * covers its subcommands ({@code -script} also denies {@code script|load}); a category rule covers what
 * {@code ACL CAT} lists in it (Redis 7 lists subcommands as {@code cmd|sub}, Redis 6.2 only the command).
 */
final class AclRules {
    private final List<String> rules;
    private final Function<String, Set<String>> category;

    /**
     * @param rules    the {@code commands} field of {@code ACL GETUSER}
     * @param category the commands in a category ({@code ACL CAT name}), lower case
     */
    AclRules(String rules, Function<String, Set<String>> category) {
        this.rules = List.of(rules.trim().toLowerCase(Locale.ROOT).split("\\s+"));
        this.category = category;
    }

    /** Whether the user may run {@code command} (ACL form, e.g. {@code get} or {@code script|load}). */
    boolean allows(String command) {
        String c = command.toLowerCase(Locale.ROOT);
        int bar = c.indexOf('|');
        String parent = bar < 0 ? null : c.substring(0, bar);
        boolean allowed = false;
        for (String rule : rules) {
            if (rule.equals("allcommands")) {
                allowed = true;
                continue;
            }
            if (rule.equals("nocommands")) {
                allowed = false;
                continue;
            }
            if (rule.length() < 2 || (rule.charAt(0) != '+' && rule.charAt(0) != '-')) {
                continue;
            }
            String body = rule.substring(1);
            boolean matches;
            if (body.equals("@all")) {
                matches = true;
            } else if (body.startsWith("@")) {
                Set<String> members = category.apply(body.substring(1));
                matches = members.contains(c) || (parent != null && members.contains(parent)
                        && members.stream().noneMatch(m -> m.startsWith(parent + "|")));
            } else {
                matches = body.equals(c) || (parent != null && body.equals(parent));
            }
            if (matches) {
                allowed = rule.charAt(0) == '+';
            }
        }
        return allowed;
    }

    /** Reads the field {@code name} of an {@code ACL GETUSER} reply (a flat name, value, ... list, or a map). */
    static Object field(Object reply, String name) {
        if (reply instanceof Map<?, ?> map) {
            return map.get(name);
        }
        if (reply instanceof List<?> list) {
            for (int i = 0; i + 1 < list.size(); i += 2) {
                if (name.equals(String.valueOf(list.get(i)))) {
                    return list.get(i + 1);
                }
            }
        }
        return null;
    }
}
