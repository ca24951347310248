package io.coordis.internal.doctor;

import io.coordis.CoordisException;
import io.coordis.RequiredCommands;
import io.coordis.doctor.Finding;
import io.coordis.inspect.Glob;
import io.coordis.internal.Keys;
import io.coordis.internal.redis.AdminCommands;
import io.coordis.internal.redis.Namespace;
import io.coordis.internal.redis.RedisNode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The doctor's ACL check of one node: which user the client runs as ({@code ACL WHOAMI}), whether its rules
 * ({@code ACL GETUSER}, categories through {@code ACL CAT}) allow every command Coordis sends
 * ({@link RequiredCommands}), and whether its key and channel patterns cover the client's key prefix.
 */
final class AclCheck {
    private AclCheck() {
    }

    /**
     * What the check found about one user.
     *
     * @param user            the user checked; empty when the connection's user could not be told
     * @param method          how the rules were read, or why they were not
     * @param missingRequired required commands the user may not run
     * @param missingOptional optional commands the user may not run
     * @param keys            the user's key patterns ({@code ~p}, {@code %RW~p})
     * @param channels        the user's channel patterns ({@code &p})
     */
    record Outcome(Optional<String> user, String method, List<String> missingRequired, List<String> missingOptional,
                   List<String> keys, List<String> channels) {
    }

    /**
     * Checks {@code forUser} (empty: the connection's own user) on {@code node}, adding what it finds to
     * {@code findings}; refusals become {@link Finding.Severity#UNKNOWN} findings.
     */
    static Outcome examine(RedisNode node, Optional<String> forUser, Namespace namespace, List<Finding> findings)
            throws InterruptedException {
        String at = node.address();
        Duration timeout = node.commandTimeout();
        AdminCommands admin = node.admin();
        Optional<String> user = forUser;
        if (user.isEmpty()) {
            try {
                user = Optional.of(node.await(admin.aclWhoami(), timeout));
            } catch (CoordisException e) {
                // checked below
            }
        }
        String method;
        List<String> missingRequired = new ArrayList<>();
        List<String> missingOptional = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        List<String> channels = new ArrayList<>();
        if (user.isEmpty()) {
            method = "not checked: ACL WHOAMI was refused";
            findings.add(new Finding(Finding.Severity.UNKNOWN, at, "acl", "cannot tell which user this connection is"
                    + " (ACL WHOAMI refused), so its permissions were not checked",
                    "run the doctor as an administrator, naming the user to check"));
        } else {
            try {
                List<Object> reply = node.await(admin.aclGetuser(user.get()), timeout);
                if (reply == null || reply.isEmpty()) {
                    throw new CoordisException(at, "no such user", null);
                }
                Object rules = AclRules.field(reply, "commands");
                Map<String, Set<String>> categories = new HashMap<>();
                AclRules acl = new AclRules(String.valueOf(rules), name -> categories.computeIfAbsent(name, n -> {
                    try {
                        return new HashSet<>(node.awaitUninterruptibly(admin.aclCat(n), timeout));
                    } catch (CoordisException e) {
                        return Set.of();
                    }
                }));
                for (String c : RequiredCommands.required()) {
                    if (!acl.allows(c)) {
                        missingRequired.add(c);
                    }
                }
                for (String c : RequiredCommands.names(EnumSet.of(RequiredCommands.Use.OPTIONAL))) {
                    if (!acl.allows(c)) {
                        missingOptional.add(c);
                    }
                }
                keys.addAll(patterns(AclRules.field(reply, "keys"), "~", flags(reply).contains("allkeys")));
                channels.addAll(patterns(AclRules.field(reply, "channels"), "&", flags(reply).contains("allchannels")));
                method = "ACL GETUSER " + user.get();
                findings.add(aclFinding(at, user.get(), missingRequired, missingOptional, keys, channels));
                prefixFinding(at, user.get(), namespace, keys, channels).ifPresent(findings::add);
            } catch (CoordisException e) {
                method = "not checked: ACL GETUSER " + user.get() + " failed: " + e.getMessage();
                findings.add(new Finding(Finding.Severity.UNKNOWN, at, "acl", "cannot read the rules of user '"
                        + user.get() + "' (" + e.getMessage() + ")", "run the doctor as an administrator, naming"
                        + " user '" + user.get() + "', to check them; the commands needed are in RequiredCommands"));
            }
        }
        return new Outcome(user, method, missingRequired, missingOptional, keys, channels);
    }

    private static Set<String> flags(List<Object> reply) {
        Set<String> flags = new HashSet<>();
        if (AclRules.field(reply, "flags") instanceof List<?> list) {
            list.forEach(f -> flags.add(String.valueOf(f)));
        }
        return flags;
    }

    /** Key or channel patterns as Redis 7 (one string, {@code "~a:* %R~b:*"}) or 6.2 (a list) reports them. */
    private static List<String> patterns(Object field, String prefix, boolean all) {
        List<String> out = new ArrayList<>();
        if (all) {
            out.add(prefix + "*");
        }
        if (field instanceof List<?> list) {
            list.forEach(p -> out.add(prefix + p));
        } else if (field != null && !String.valueOf(field).isBlank()) {
            for (String p : String.valueOf(field).trim().split("\\s+")) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * With a client key prefix: whether the user's key and channel patterns cover a name under the prefix and the
     * keys and channels Coordis derives from it ({@code ~P* ~{P* &P* &{P*}); empty without a prefix.
     */
    static Optional<Finding> prefixFinding(String at, String user, Namespace namespace, List<String> keys,
                                           List<String> channels) {
        String prefix = namespace.prefix();
        if (prefix.isEmpty()) {
            return Optional.empty();
        }
        String key = namespace.key("coordis-doctor");
        String channel = namespace.channel("coordis-doctor");
        List<String> rules = RequiredCommands.keyPatterns(prefix); // ~P* ~{P* &P* &{P*
        List<String> missing = new ArrayList<>();
        if (!covered(keys, '~', key)) {
            missing.add(rules.get(0));
        }
        if (!covered(keys, '~', Keys.derived(key, "fence"))) {
            missing.add(rules.get(1));
        }
        if (!covered(channels, '&', channel)) {
            missing.add(rules.get(2));
        }
        if (!covered(channels, '&', Keys.derived(channel, "released"))) {
            missing.add(rules.get(3));
        }
        if (missing.isEmpty()) {
            return Optional.of(new Finding(Finding.Severity.OK, at, "acl-prefix", "user '" + user + "' may read and "
                    + "write the keys and channels under this client's key prefix '" + prefix + "'", ""));
        }
        return Optional.of(new Finding(Finding.Severity.FAIL, at, "acl-prefix", "user '" + user + "' may not touch "
                + "all keys and channels under this client's key prefix '" + prefix + "' (" + scope(keys, channels) + "; missing "
                + String.join(" ", missing) + ")", "ACL SETUSER " + user + " " + String.join(" ", missing)));
    }

    /** A user's key and channel patterns as findings show them: {@code keys ~a:* ~{a:*, channels &a:*}. */
    private static String scope(List<String> keys, List<String> channels) {
        return "keys " + (keys.isEmpty() ? "none" : String.join(" ", keys)) + ", channels "
                + (channels.isEmpty() ? "none" : String.join(" ", channels));
    }

    /** Whether a pattern of {@code patterns} ({@code ~p}, {@code %RW~p}, {@code &p}) gives full access to {@code name}. */
    private static boolean covered(List<String> patterns, char kind, String name) {
        for (String p : patterns) {
            String glob;
            if (p.startsWith(String.valueOf(kind))) {
                glob = p.substring(1);
            } else if (kind == '~' && p.startsWith("%") && p.indexOf('~') > 0) {
                String perms = p.substring(1, p.indexOf('~')).toUpperCase(Locale.ROOT);
                if (!(perms.contains("R") && perms.contains("W"))) {
                    continue; // read-only or write-only keys are not enough
                }
                glob = p.substring(p.indexOf('~') + 1);
            } else {
                continue;
            }
            try {
                if (Glob.of(glob).matches(name)) {
                    return true;
                }
            } catch (IllegalArgumentException e) {
                // a pattern this check cannot read: it does not count
            }
        }
        return false;
    }

    static Finding aclFinding(String at, String user, List<String> missing, List<String> optional, List<String> keys,
                              List<String> channels) {
        String scope = scope(keys, channels);
        if (!missing.isEmpty()) {
            return new Finding(Finding.Severity.FAIL, at, "acl", "user '" + user + "' may not run " + missing.size()
                    + " command(s) Coordis needs: " + String.join(" ", missing) + " (" + scope + ")",
                    "ACL SETUSER " + user + " " + String.join(" ", missing.stream().map(c -> "+" + c).toList()));
        }
        if (keys.isEmpty()) {
            return new Finding(Finding.Severity.FAIL, at, "acl", "user '" + user + "' may run every command Coordis "
                    + "needs but may touch no key (" + scope + ")", "ACL SETUSER " + user + " ~PREFIX* ~{PREFIX*");
        }
        String opt = optional.isEmpty() ? "" : "; without the optional " + String.join(" ", optional)
                + " (see RequiredCommands.Use.OPTIONAL)";
        return new Finding(optional.isEmpty() ? Finding.Severity.OK : Finding.Severity.WARN, at, "acl", "user '" + user
                + "' may run every command Coordis needs (" + scope + ")" + opt,
                optional.isEmpty() ? "" : "ACL SETUSER " + user + " " + String.join(" ", optional.stream().map(c -> "+" + c).toList()));
    }
}
