package io.coordis.shedlock;

import io.coordis.testkit.fault.FencedResource;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.scheduling.annotation.Scheduled;

import java.util.concurrent.atomic.AtomicInteger;

/** A scheduled job as an application writes it; each run enters the referee with its execution's fencing number. */
class ReportJob {
    private final FencedResource resource;
    private final String instance;
    private final AtomicInteger runs = new AtomicInteger();

    ReportJob(FencedResource resource, String instance) {
        this.resource = resource;
        this.instance = instance;
    }

    @Scheduled(fixedDelay = 5)
    @SchedulerLock(name = "nightly-report", lockAtMostFor = "10s")
    public void run() throws InterruptedException {
        long fence = CoordisLockProvider.currentFencingToken();
        resource.enter(instance, fence);
        resource.write(instance, fence); // a real job hands the fence to what it writes to
        Thread.sleep(10);
        resource.exit(instance, fence);
        runs.incrementAndGet();
    }

    /** Runs so far (a method: the bean is a proxy). */
    public int runs() {
        return runs.get();
    }
}
