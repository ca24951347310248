/**
 * Coordis for Spring applications: {@link io.coordis.spring.Locked}, {@link io.coordis.spring.RateLimited} and
 * {@link io.coordis.spring.LeaderOnly} methods, {@link io.coordis.spring.CoordisListener} queue consumers, and
 * {@link io.coordis.spring.CoordisContext} for the lease or leadership of the running method.
 */
package io.coordis.spring;
