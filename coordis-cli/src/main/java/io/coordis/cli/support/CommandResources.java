package io.coordis.cli.support;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.netty.resolver.DefaultAddressResolverGroup;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Lettuce's resources for the clients of one short command: one I/O thread and one computation thread, where the
 * library's own start two of each at least, and the JDK's address resolver, where Lettuce's default builds Netty's DNS
 * resolver (a socket and the system's resolver configuration) on the first connection. A lost connection is tried
 * again after jittered pauses doubling from 5 ms up to 1 s, as with the library's own resources. Made on first use;
 * {@link #close()} shuts them down once the command is done, after its clients, which never shut down resources they
 * were given. Not thread-safe: the command's thread opens its clients and closes this.
 */
final class CommandResources implements AutoCloseable {
    private ClientResources resources;

    /** The resources, made on the first call. */
    ClientResources get() {
        if (resources == null) {
            resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                    .addressResolverGroup(DefaultAddressResolverGroup.INSTANCE)
                    .reconnectDelay(Delay.equalJitter(Duration.ofMillis(5), Duration.ofSeconds(1), 5,
                            TimeUnit.MILLISECONDS))
                    .build();
        }
        return resources;
    }

    /** Starts shutting the resources down (their threads stop within 2 s); nothing when none were made. */
    @Override
    public void close() {
        if (resources != null) {
            resources.shutdown(0, 2, TimeUnit.SECONDS);
            resources = null;
        }
    }
}
