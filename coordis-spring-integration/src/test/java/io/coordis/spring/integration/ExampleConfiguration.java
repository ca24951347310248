package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.election.ElectionOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.core.GenericHandler;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Context;

import java.time.Duration;

/** The README's Spring Integration example, started by {@code AutoConfigurationIT}. */
@Configuration(proxyBeanMethods = false)
@EnableIntegration
public class ExampleConfiguration {
    private static final Logger log = LoggerFactory.getLogger(ExampleConfiguration.class);

    @Bean
    CoordisLockRegistry lockRegistry(Coordis coordis) {
        // was: new RedisLockRegistry(connectionFactory, "invoices"); the same Redis keys
        CoordisLockRegistry registry = new CoordisLockRegistry(coordis, "invoices");
        registry.addLossListener((key, lease) ->
                log.warn("lost lock {}: stop writing with fencing token {}", key, lease.fencingToken()));
        return registry;
    }

    @Bean
    IntegrationFlow invoicing(CoordisLockRegistry locks, InvoiceStore store) {
        GenericHandler<Invoice> bill = (invoice, headers) -> {
            long fence = locks.lease(invoice.customer()).orElseThrow().fencingToken();
            store.save(invoice, fence);                                // the store refuses older fences
            return null;
        };
        LockRequestHandlerAdvice oneAtATime = new LockRequestHandlerAdvice(locks,
                message -> ((Invoice) message.getPayload()).customer());
        return IntegrationFlow.from("invoices").handle(bill, e -> e.advice(oneAtATime)).get();
    }

    @Bean
    CoordisLeaderInitiator leaderInitiator(Coordis coordis) {
        // was: new LockRegistryLeaderInitiator(redisLockRegistry, candidate)
        return new CoordisLeaderInitiator(coordis, new Scheduler("node-1"),
                ElectionOptions.defaults().withTtl(Duration.ofSeconds(10)));
    }

    /** Endpoints annotated {@code @Role("scheduler")} run only while this node leads. */
    static final class Scheduler extends AbstractCandidate {
        Scheduler(String node) {
            super(node, "scheduler");
        }

        @Override
        public void onGranted(Context context) {
            long term = ((LeadershipContext) context).term();     // the fencing number of this leader's writes
            log.info("leading the scheduler in term {}", term);
        }

        @Override
        public void onRevoked(Context context) {
            log.info("no longer leading the scheduler");
        }
    }

    record Invoice(String customer, long cents) {
    }

    /** Where invoices go; it keeps the highest fencing number it saw per customer. */
    interface InvoiceStore {
        void save(Invoice invoice, long fence);
    }
}
