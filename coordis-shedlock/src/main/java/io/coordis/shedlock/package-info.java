/**
 * A ShedLock {@code LockProvider} on Coordis locks, with fencing numbers for scheduled jobs, and its Spring Boot
 * auto-configuration.
 */
package io.coordis.shedlock;
