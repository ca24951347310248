package io.coordis.testkit.fault;

/**
 * One target a {@link Nemesis} may hit with one kind of fault: its name, for the schedule and the events, and
 * the fault that hits it. Immutable.
 *
 * @param name  the target's name (a server's or proxy's address, a namespace, "client processes")
 * @param fault applies and heals the fault
 */
record FaultTarget(String name, Nemesis.Fault fault) {
}
