package io.coordis.soak;

import io.coordis.testkit.fault.Nemesis;

import java.util.List;
import java.util.Random;

/**
 * One part of a soak run: clients working against Redis while faults happen, judged by a referee at the end.
 * A {@link Harness} starts several at once against shared nemeses and has each write its figures and checks into
 * one {@link SoakReport}. In order: {@link #start}, {@link #disturb} on a thread of its own until the run ends,
 * {@link #finish}, {@link #close}.
 */
interface Workload extends AutoCloseable {

    /** A short name, put in front of the workload's figures when it runs beside others ({@code lock}, {@code queue}). */
    String name();

    /** Starts the clients; returns once they work. */
    void start() throws Exception;

    /**
     * The workload's own faults (consumer kills, failovers, killed pub/sub connections) until {@code endNanos} or
     * until it is {@link #done()}; none by default. Runs on a thread of its own; an interrupt ends it.
     */
    default void disturb(long endNanos, Random random) throws Exception {
    }

    /** Whether it finished its work before the run's time is up (every message processed); never by default. */
    default boolean done() {
        return false;
    }

    /** Client processes the nemesis may SIGSTOP (asked at each fault); none by default. */
    default List<Long> clientPids() {
        return List.of();
    }

    /** One line of progress, printed every minute. */
    default String progress() {
        return "";
    }

    /**
     * Stops the clients, lets what is in flight settle, and writes the figures and checks into {@code report};
     * {@code faults} are the faults every nemesis of the run applied.
     */
    void finish(SoakReport report, List<Nemesis.Event> faults) throws Exception;

    /** Frees what is left (processes, servers); called also when the run failed before {@link #finish}. */
    @Override
    default void close() throws Exception {
    }
}
