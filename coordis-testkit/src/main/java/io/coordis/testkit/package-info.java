/**
 * Real Redis for tests: servers, replicated groups, Sentinel groups and clusters started as processes
 * ({@link io.coordis.testkit.RedisServer}, {@link io.coordis.testkit.RedisGroup},
 * {@link io.coordis.testkit.SentinelGroup}, {@link io.coordis.testkit.RedisCluster}), a JUnit 5
 * {@link io.coordis.testkit.RedisExtension} that starts them around a test class, a fault-injecting TCP
 * {@link io.coordis.testkit.FaultProxy}, test certificates for TLS and a small RESP client.
 */
package io.coordis.testkit;
