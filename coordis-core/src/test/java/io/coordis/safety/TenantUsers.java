package io.coordis.safety;

import io.coordis.RequiredCommands;
import io.coordis.testkit.RedisServer;

import java.util.ArrayList;
import java.util.List;

/**
 * For the tenant tests: ACL users each limited to its own prefix ({@code <name>:}) with exactly the commands
 * Coordis needs, and what a test opened, closed in reverse order after it.
 */
final class TenantUsers {
    private final List<AutoCloseable> open = new ArrayList<>();

    /** (Re)creates a user per tenant, named as the tenant, with {@code password}, limited to {@code <tenant>:}. */
    static void create(RedisServer server, String password, List<String> tenants) {
        for (String tenant : tenants) {
            server.command("ACL", "DELUSER", tenant);
            List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", tenant, "on", ">" + password,
                    "resetkeys", "resetchannels"));
            args.addAll(RequiredCommands.keyPatterns(tenant + ":"));
            args.addAll(List.of(RequiredCommands.aclRules(RequiredCommands.allRequiredUses()).split(" ")));
            server.command(args.toArray(String[]::new));
        }
    }

    /** {@code resource}, to be closed by {@link #closeAll()}. */
    <T extends AutoCloseable> T keep(T resource) {
        open.add(resource);
        return resource;
    }

    /** Closes what {@link #keep} was given, the last first. */
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }
}
