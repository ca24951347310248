/**
 * Spring Integration on Coordis: a {@code LockRegistry} of Coordis locks
 * ({@link io.coordis.spring.integration.CoordisLockRegistry}) and a leader initiator on a Coordis election
 * ({@link io.coordis.spring.integration.CoordisLeaderInitiator}).
 */
package io.coordis.spring.integration;
