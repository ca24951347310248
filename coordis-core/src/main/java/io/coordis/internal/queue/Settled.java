package io.coordis.internal.queue;

import io.coordis.Outcome;

/**
 * What settling one delivery answered: its outcome and, when the script saw the message, the payload's failed
 * deliveries before this one ({@code -1} when it did not: already settled, or gone).
 */
record Settled(Outcome outcome, long failuresBefore) {
    static Settled of(Outcome outcome) {
        return new Settled(outcome, -1);
    }
}
