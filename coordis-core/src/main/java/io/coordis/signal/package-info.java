/**
 * Signal and wait over Redis pub/sub: {@link io.coordis.signal.Signals} publishes and subscribes (broadcast,
 * to one waiter, by pattern), a {@link io.coordis.signal.Waiter} wakes with the first signal, and a latched
 * {@link io.coordis.signal.Event} keeps its signal for a while for waiters that come late. Pub/sub keeps no
 * messages: a waiter hears what is sent after it subscribed, and is told of gaps. Thread-safe.
 */
package io.coordis.signal;
