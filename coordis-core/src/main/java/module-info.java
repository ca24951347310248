/**
 * Coordis: locks, Redlock, leader election, signals and queues on Redis. Exports the API packages only; the Redis
 * access, scripts and timers under {@code io.coordis.internal} stay inside the module, and no Netty or SLF4J type
 * appears in the API. One Lettuce type does: {@code io.lettuce.core.resource.ClientResources}, which
 * {@code Coordis.Builder.clientResources} takes so that an application can share its event loops or record
 * Lettuce's command metrics; hence Lettuce is required transitively. No other Lettuce type is in the API.
 */
module io.coordis.core {
    requires transitive lettuce.core;
    requires io.netty.common;
    requires io.netty.handler;
    requires io.netty.transport;
    // Lettuce (an automatic module, which requires nothing by name) resolves host names with Netty's DNS resolver
    // when it is present, and it is: a dependency of Lettuce. On the module path nothing else asks for that module,
    // so without this line an application fails at connect with NoClassDefFoundError (DnsCnameCache).
    requires io.netty.resolver.dns;
    requires reactor.core;
    requires org.slf4j;

    exports io.coordis;
    exports io.coordis.doctor;
    exports io.coordis.election;
    exports io.coordis.inspect;
    exports io.coordis.latch;
    exports io.coordis.lock;
    exports io.coordis.queue;
    exports io.coordis.ratelimit;
    exports io.coordis.signal;
}
