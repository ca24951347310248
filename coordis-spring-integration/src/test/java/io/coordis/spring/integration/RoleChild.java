package io.coordis.spring.integration;

import org.springframework.context.ConfigurableApplicationContext;

import java.io.IOException;
import java.util.Map;

/**
 * A child JVM running {@link RoleApp}: {@code RoleChild <redis url> <referee address> <app id> <ttl ms>}. Prints
 * {@code GRANTED <id> <term>} when it leads; closes its context and exits when its stdin ends.
 */
public final class RoleChild {
    private RoleChild() {
    }

    public static void main(String[] args) throws IOException {
        ConfigurableApplicationContext ctx = Contexts.start(RoleApp.class,
                Map.of("redis.url", args[0], "referee", args[1], "app", args[2], "ttl", args[3]));
        System.out.println("STARTED " + args[2]);
        while (System.in.read() >= 0) {
            // until the parent goes away
        }
        ctx.close();
    }
}
