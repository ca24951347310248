package io.coordis.soak;

import io.coordis.testkit.fault.FencedResource;
import io.coordis.testkit.fault.Nemesis;

import java.time.Duration;
import java.util.List;

/** How a fenced resource came back after faults: the one place the soak runs measure it. */
final class Recovery {
    private Recovery() {
    }

    /** From each healed fault to the next write the resource accepted. */
    static Samples afterFaults(FencedResource resource, List<Nemesis.Event> faults) {
        Samples into = new Samples();
        for (Nemesis.Event e : faults) {
            long first = resource.firstAcceptAfter(e.healedNanos());
            if (first >= 0) {
                into.add(first - e.healedNanos());
            }
        }
        return into;
    }

    /** Whether the resource accepted a write within {@code bound} after the last fault was healed (or after {@code from}). */
    static boolean resumedAfterLast(FencedResource resource, List<Nemesis.Event> faults, long from, Duration bound)
            throws InterruptedException {
        long after = faults.isEmpty() ? from : Math.max(from, faults.get(faults.size() - 1).healedNanos());
        long deadline = after + bound.toNanos();
        while (resource.firstAcceptAfter(after) < 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(50);
        }
        return true;
    }
}
