/**
 * The Coordis client and what every primitive shares: {@link io.coordis.Coordis} (connect, then make locks,
 * elections, queues, signals, latches and rate limiters from it), its settings, the {@link io.coordis.Replication}
 * writes may wait for, the monotonic {@link io.coordis.Ticker}, the {@link io.coordis.Telemetry} it reports to, and
 * the unchecked {@link io.coordis.CoordisException} family, which names the node and the cause of every Redis failure.
 * Outcomes such as a busy lock or a wait that ran out are return values, not exceptions.
 *
 * <p><b>URLs.</b> {@code redis://[user:password@]host:port[/db]}, {@code rediss://...} for TLS,
 * {@code redis-sentinel://host:port[,host:port]/db#masterName} for Sentinel,
 * {@code redis-cluster://[user:password@]host:port[,host:port...]} (or {@code rediss-cluster://} for TLS) for
 * Redis Cluster: the seeds are any nodes of the cluster, the topology is read from them and kept up to date.
 * Given three or more URLs of independent masters ({@link io.coordis.Coordis.Builder#urls}), locks are Redlock
 * locks over all of them; such a client connects to each node in the background, so a minority of nodes may be
 * down when it starts.
 *
 * <p><b>Redis Cluster.</b> Every primitive keeps the keys of one name in one hash slot ({@code {name}:suffix}, or
 * the name's own {@code {hash tag}}), so locks, elections, signals, queues and rate limiters work there; a name whose
 * keys would land in different slots (braces without a valid tag, such as {@code a{}b}) fails with a
 * {@link io.coordis.CommandRejectedException} naming CROSSSLOT. Several URLs with a cluster among them (Redlock over
 * a cluster) and replica URLs with a cluster are refused. Replication in a cluster is asynchronous: a write the
 * master acknowledged but had not passed on before it failed can be lost in a failover, on Sentinel as on a cluster;
 * {@link io.coordis.Coordis.Builder#replication} makes grants, terms and pushes wait for replicas, which narrows that
 * window.
 */
package io.coordis;
