package io.coordis.example;

import io.coordis.Coordis;
import io.coordis.spring.CoordisContext;
import io.coordis.spring.CoordisListener;
import io.coordis.spring.LeaderOnly;
import io.coordis.spring.Locked;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import java.util.concurrent.atomic.AtomicInteger;

/** The three annotations on one page. */
@Component
public class Jobs {
    private static final Logger log = LoggerFactory.getLogger(Jobs.class);

    private final Coordis coordis;
    private final String instance;
    private final AtomicInteger orders = new AtomicInteger();

    Jobs(Coordis coordis, @Value("${example.instance:${PID:instance}}") String instance) {
        this.coordis = coordis;
        this.instance = instance;
    }

    /** Every instance tries; one at a time writes, the others skip this round. */
    @Scheduled(fixedDelayString = "${example.report-every:5s}")
    @Locked(name = "example:report", ttl = "30s")
    public void writeReport() throws InterruptedException {
        long fence = CoordisContext.fencingToken();
        log.info("{} writes the report with fencing number {}", instance, fence);
        Thread.sleep(1000); // the work; pass `fence` to what it writes, so a stale holder is refused
    }

    /** Runs in the leader only; another instance takes over when it stops or dies. */
    @Scheduled(fixedDelayString = "${example.housekeeping-every:3s}")
    @LeaderOnly("example:housekeeping")
    public void houseKeeping() {
        log.info("{} leads housekeeping in term {}", instance, CoordisContext.term());
    }

    /** Each order is processed once it is taken, by whichever instance took it; a failure retries it later. */
    @CoordisListener(queue = "example:orders", concurrency = 2)
    public void onOrder(String order) {
        log.info("{} processed {}", instance, order);
    }

    /** Something to consume: every instance places an order now and then. */
    @Scheduled(fixedDelayString = "${example.order-every:2s}")
    public void placeOrder() throws InterruptedException {
        coordis.reliableQueue("example:orders").push("order " + instance + "-" + orders.incrementAndGet());
    }
}
