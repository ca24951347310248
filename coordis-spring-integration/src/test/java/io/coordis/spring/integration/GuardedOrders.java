package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.testkit.fault.FencedResource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.core.GenericHandler;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.integration.handler.advice.LockRequestHandlerAdvice;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.LockRegistry;

import java.util.concurrent.atomic.AtomicLong;

/**
 * An application whose handler of the channel {@code orders} runs under {@link LockRequestHandlerAdvice} with one
 * lock key for every message, reporting to the referee while inside. The property {@code registry} picks the lock
 * registry: {@code coordis}, or {@code local} (Spring Integration's in-process registry, which cannot exclude
 * another application: the broken variant the referee must catch).
 */
@Configuration(proxyBeanMethods = false)
@EnableIntegration
public class GuardedOrders {

    @Bean(destroyMethod = "close")
    Coordis coordis(@Value("${redis.url}") String url) {
        return Clients.connect(url);
    }

    @Bean
    LockRegistry<?> lockRegistry(@Value("${registry}") String registry, Coordis coordis) {
        return registry.equals("coordis") ? new CoordisLockRegistry(coordis, "guarded") : new DefaultLockRegistry();
    }

    @Bean
    IntegrationFlow ordersFlow(LockRegistry<?> registry, FencedResource referee, @Value("${app}") String app) {
        AtomicLong localTokens = new AtomicLong();
        LockRequestHandlerAdvice advice = new LockRequestHandlerAdvice(registry, message -> "orders");
        GenericHandler<Object> handler = (payload, headers) -> {
            long token = registry instanceof CoordisLockRegistry coordisLocks
                    ? coordisLocks.lease("orders").orElseThrow().fencingToken()
                    : localTokens.incrementAndGet();
            String client = app + "-" + Thread.currentThread().getName();
            referee.enter(client, token);
            referee.write(client, token);
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            referee.exit(client, token);
            return null;
        };
        return IntegrationFlow.from("orders").handle(handler, e -> e.advice(advice)).get();
    }
}
