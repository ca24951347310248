package io.coordis.spring.integration;

import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import io.coordis.testkit.fault.FencedResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.messaging.MessageChannel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two applications against one Redis, each sending orders from several threads through a handler guarded by
 * {@code LockRequestHandlerAdvice}; the referee judges that no two handlers were ever inside at once.
 */
class LockAdviceIT {
    private static final int THREADS_PER_APP = 3;
    private static final int ORDERS_PER_THREAD = 15;

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    @Test
    void withTheCoordisRegistryNothingIsHandledTwiceAtOnce(RedisServer server) throws Exception {
        FencedResource.Report report = run(server, "coordis");
        assertThat(report.totalEnters()).isEqualTo(2 * THREADS_PER_APP * ORDERS_PER_THREAD);
        assertThat(report.overlaps()).as("handlers inside at once: %s", report.notes()).isZero();
        assertThat(report.maxInside()).isEqualTo(1);
        assertThat(report.fenceRegressions()).as("fencing numbers only grow").isZero();
        assertThat(report.violations()).isZero();
        assertThat(report.staleRejections()).isZero();
    }

    @Test
    void theRefereeCatchesARegistryThatLocksOnlyWithinItsOwnApplication(RedisServer server) throws Exception {
        FencedResource.Report report = run(server, "local");
        assertThat(report.overlaps()).as("the in-process registry lets both applications in at once").isPositive();
        assertThat(report.maxInside()).isGreaterThan(1);
    }

    private static FencedResource.Report run(RedisServer server, String registry) throws Exception {
        try (FencedResource referee = FencedResource.start()) {
            List<ConfigurableApplicationContext> apps = new ArrayList<>();
            ExecutorService senders = Executors.newFixedThreadPool(2 * THREADS_PER_APP);
            try {
                for (String app : List.of("a", "b")) {
                    apps.add(Contexts.start(GuardedOrders.class,
                            Map.of("redis.url", server.uri(), "registry", registry, "app", app),
                            ctx -> ctx.getBeanFactory().registerSingleton("referee", referee)));
                }
                List<Future<?>> sent = new ArrayList<>();
                for (ConfigurableApplicationContext app : apps) {
                    MessageChannel orders = app.getBean("orders", MessageChannel.class);
                    for (int t = 0; t < THREADS_PER_APP; t++) {
                        sent.add(senders.submit(() -> {
                            for (int i = 0; i < ORDERS_PER_THREAD; i++) {
                                orders.send(MessageBuilder.withPayload(i).build());
                            }
                        }));
                    }
                }
                for (Future<?> f : sent) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                senders.shutdownNow();
                apps.forEach(ConfigurableApplicationContext::close);
            }
            return referee.report();
        }
    }
}
