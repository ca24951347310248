/**
 * Starts and stops real {@code redis-server} processes on loopback ports. The binary comes from the configuration,
 * the {@code PATH}, or the embedded-redis artifact, read as a resource: none of that artifact's classes is used,
 * so it is not required here (its module name would only be guessed from its file name). On the module path,
 * resolve it with {@code --add-modules} for the embedded binary to be found.
 */
module io.coordis.redis.runner {
    requires org.slf4j;

    exports io.coordis.redis.runner;
}
