/**
 * Leader election on Redis: a {@link io.coordis.election.LeaderElection} candidate campaigns for a lease and, once
 * elected, holds a {@link io.coordis.election.Leadership} whose term fences the leader's writes; a
 * {@link io.coordis.election.Candidacy} campaigns again by itself after each leadership ends. Also the classic
 * counter election, for sharing a key with programs that use it. Make candidates with
 * {@link io.coordis.Coordis#election(String)}; every type here is thread-safe.
 */
package io.coordis.election;
