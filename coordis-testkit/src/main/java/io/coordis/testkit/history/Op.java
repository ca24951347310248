package io.coordis.testkit.history;

import java.util.Objects;

/**
 * One line of a history: a client's step as it saw it.
 *
 * @param process   the client process (or client) that recorded it
 * @param thread    the thread within the process; operations of one thread are sequential
 * @param type      {@code invoke} (about to call), {@code ok} (the call succeeded), {@code fail} (it failed and
 *                  did nothing), {@code info} (outcome unknown, or an observation such as a reported gap)
 * @param f         the operation, e.g. {@code acquire}, {@code release}, {@code enqueue}, {@code ack},
 *                  {@code elected}, {@code notify}, {@code receive}, {@code gap}
 * @param key       the object, e.g. the lock name
 * @param value     a value, e.g. a message id or a leader id (may be empty)
 * @param token     a number, e.g. a fencing token or a term ({@code -1} when none)
 * @param micros    wall-clock time in microseconds since the epoch (one machine, one clock)
 */
public record Op(String process, String thread, String type, String f, String key, String value, long token,
                 long micros) {
    /**
     * Checks that the step names its process, thread, type and operation; a null key or value reads as empty.
     *
     * @param process   the client process (or client) that recorded it
     * @param thread    the thread within the process; operations of one thread are sequential
     * @param type      {@code invoke} (about to call), {@code ok} (the call succeeded), {@code fail} (it failed and
     *                  did nothing), {@code info} (outcome unknown, or an observation such as a reported gap)
     * @param f         the operation, e.g. {@code acquire}, {@code release}, {@code enqueue}, {@code ack},
     *                  {@code elected}, {@code notify}, {@code receive}, {@code gap}
     * @param key       the object, e.g. the lock name
     * @param value     a value, e.g. a message id or a leader id (may be empty)
     * @param token     a number, e.g. a fencing token or a term ({@code -1} when none)
     * @param micros    wall-clock time in microseconds since the epoch (one machine, one clock)
     * @throws NullPointerException when {@code process}, {@code thread}, {@code type} or {@code f} is null
     */
    public Op {
        Objects.requireNonNull(process, "process");
        Objects.requireNonNull(thread, "thread");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(f, "f");
        key = key == null ? "" : key;
        value = value == null ? "" : value;
    }

    /**
     * {@code true} for type {@code t} and operation {@code op}.
     *
     * @param t  the type
     * @param op the operation
     * @return {@code true} when both match
     */
    public boolean is(String t, String op) {
        return type.equals(t) && f.equals(op);
    }

    /**
     * Process and thread: the sequential actor that recorded this.
     *
     * @return {@code process/thread}
     */
    public String actor() {
        return process + "/" + thread;
    }
}
