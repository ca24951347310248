/**
 * Read-only views of what Coordis keeps in Redis, as {@code coordis ls} and {@code coordis inspect} show them:
 * {@link io.coordis.inspect.Inspector} lists and reads locks, elections, queues, semaphores and signals by
 * {@link io.coordis.inspect.Glob}, and answers immutable state records. Reads never change anything; listing walks
 * the keyspace with {@code SCAN}.
 */
package io.coordis.inspect;
