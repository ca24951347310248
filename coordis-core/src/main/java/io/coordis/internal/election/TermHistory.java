package io.coordis.internal.election;

/**
 * The highest term one candidate has seen in its election, and whether a leadership it sees now
 * regressed: its term is below the highest, or equal to it under another id (two leaderships cannot
 * share a term unless Redis lost data). Thread-safe.
 */
final class TermHistory {
    private long highest;
    private String highestId;
    private long lastReportedTerm = -1;
    private String lastReportedId;

    /** What {@link #record} concluded. */
    record Seen(boolean regressed, long highestBefore, boolean firstReport) {
    }

    /** Records the leadership {@code id}/{@code term}; reports each regressed leadership once as first. */
    synchronized Seen record(String id, long term) {
        long before = highest;
        boolean regressed = term < highest || (term == highest && highestId != null && !highestId.equals(id));
        if (regressed) {
            boolean first = term != lastReportedTerm || !id.equals(lastReportedId);
            lastReportedTerm = term;
            lastReportedId = id;
            return new Seen(true, before, first);
        }
        if (term > highest) {
            highest = term;
            highestId = id;
        }
        return new Seen(false, before, false);
    }

    /** A term this candidate was elected with after refusing a regressed one: it is the new highest. */
    synchronized void elected(String id, long term) {
        if (term > highest) {
            highest = term;
            highestId = id;
        }
    }

    synchronized long highest() {
        return highest;
    }
}
