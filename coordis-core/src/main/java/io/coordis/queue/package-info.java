/**
 * Queues on Redis lists: {@link io.coordis.queue.Queue}, a plain list, and {@link io.coordis.queue.ReliableQueue},
 * at-least-once delivery whose consumers hold messages in slots guarded by heartbeats, so that a dead consumer's
 * messages go back to the queue. Make them with {@link io.coordis.Coordis#reliableQueue(String)}; queues and
 * consumers are thread-safe.
 */
package io.coordis.queue;
