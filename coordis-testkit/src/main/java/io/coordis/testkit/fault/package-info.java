/**
 * Faults for safety tests: a {@link io.coordis.testkit.fault.Nemesis} that kills, pauses, delays and partitions
 * servers and clients from a replayable seed, network namespaces, cut replication streams, and a
 * {@link io.coordis.testkit.fault.FencedResource} that judges whether fenced writers ever overlapped.
 */
package io.coordis.testkit.fault;
