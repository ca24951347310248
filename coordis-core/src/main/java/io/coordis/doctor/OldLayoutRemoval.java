package io.coordis.doctor;

import java.util.Map;

/**
 * What {@link Doctor#removeOldLayout()} did on one node.
 *
 * @param node    {@code host:port}
 * @param removed per suffix ({@code fence}, {@code term}, {@code holder}, ...), how many keys were deleted
 * @param kept    leftovers found but kept because they were in use, or had changed, when their turn came
 */
public record OldLayoutRemoval(String node, Map<String, Long> removed, long kept) {
    /**
     * Copies the counts, so the result cannot change.
     *
     * @param node    {@code host:port}
     * @param removed per suffix ({@code fence}, {@code term}, {@code holder}, ...), how many keys were deleted
     * @param kept    leftovers found but kept because they were in use, or had changed, when their turn came
     */
    public OldLayoutRemoval {
        removed = Map.copyOf(removed);
    }

    /**
     * How many keys were deleted in all.
     *
     * @return the sum of {@code removed}
     */
    public long total() {
        return removed.values().stream().mapToLong(Long::longValue).sum();
    }
}
