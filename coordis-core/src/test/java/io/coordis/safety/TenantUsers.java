package io.coordis.safety;

import io.coordis.RequiredCommands;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;

/**
 * For the tenant tests: before each test, an empty Redis with one ACL user per tenant, named as the tenant,
 * limited to its own prefix ({@code <tenant>:}) with exactly the commands Coordis needs; after it, what the test
 * {@link #keep kept} is closed, the last first.
 */
final class TenantUsers implements BeforeEachCallback, AfterEachCallback {
    private final RedisExtension redis;
    private final String password;
    private final List<String> tenants;
    private final List<AutoCloseable> open = new ArrayList<>();

    TenantUsers(RedisExtension redis, String password, String... tenants) {
        this.redis = redis;
        this.password = password;
        this.tenants = List.of(tenants);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        redis.server().flushAll();
        for (String tenant : tenants) {
            redis.server().command("ACL", "DELUSER", tenant);
            List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", tenant, "on", ">" + password,
                    "resetkeys", "resetchannels"));
            args.addAll(RequiredCommands.keyPatterns(tenant + ":"));
            args.addAll(List.of(RequiredCommands.aclRules(RequiredCommands.allRequiredUses()).split(" ")));
            redis.server().command(args.toArray(String[]::new));
        }
    }

    /** {@code resource}, closed after the test. */
    <T extends AutoCloseable> T keep(T resource) {
        open.add(resource);
        return resource;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        open.clear();
    }
}
