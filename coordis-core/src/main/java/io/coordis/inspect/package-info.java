/**
 * Read-only views of what Coordis keeps in Redis, as {@code coordis ls} and {@code coordis inspect} show them:
 * {@link io.coordis.inspect.Inspector} lists and reads locks, elections, queues, semaphores, signals, rate limiters
 * and count-down latches by {@link io.coordis.inspect.Glob}, and answers immutable state records, one per
 * {@link io.coordis.inspect.ObjectKind}; {@link io.coordis.inspect.StateDocuments} gives each its one JSON document,
 * in full or redacted. Reads never change anything; listing walks the keyspace with {@code SCAN}.
 */
package io.coordis.inspect;
