/**
 * Histories of what clients did, recorded as JSON lines by {@link io.coordis.testkit.history.History} and read back
 * by {@link io.coordis.testkit.history.Histories}, and the checkers that judge them: locks, leaders, queues and
 * signals.
 */
package io.coordis.testkit.history;
