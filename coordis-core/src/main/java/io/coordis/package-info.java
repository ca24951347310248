/**
 * The Coordis client and what every primitive shares: {@link io.coordis.Coordis} (connect, then make locks,
 * elections, queues and signals from it), its settings, the {@link io.coordis.Replication} writes may wait for,
 * the monotonic {@link io.coordis.Ticker}, the {@link io.coordis.Telemetry} it reports to, and the unchecked
 * {@link io.coordis.CoordisException} family, which names the node and the cause of every Redis failure.
 * Outcomes such as a busy lock or a wait that ran out are return values, not exceptions.
 */
package io.coordis;
