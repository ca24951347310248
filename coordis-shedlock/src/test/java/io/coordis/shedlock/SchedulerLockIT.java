package io.coordis.shedlock;

import io.coordis.Coordis;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.fault.FencedResource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * End to end: two Spring application contexts (two instances of one service) run a {@code @SchedulerLock} job on one
 * Redis, with the provider from this module's auto-configuration; the referee sees one run at a time.
 */
class SchedulerLockIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    /** One instance of the service: a Coordis client, ShedLock on, the job. */
    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "30s")
    @ImportAutoConfiguration(CoordisShedLockAutoConfiguration.class)
    static class Service {
        @Bean(destroyMethod = "close")
        Coordis coordis(Instance instance) {
            return Coordis.builder().keyPrefix(Prefixed.prefix()).url(instance.redisUrl()).connect();
        }

        /** As Spring Boot makes it: a lifecycle bean, so jobs stop before the client closes. */
        @Bean
        ThreadPoolTaskScheduler taskScheduler() {
            return new ThreadPoolTaskScheduler();
        }

        @Bean
        ReportJob reportJob(FencedResource resource, Instance instance) {
            return new ReportJob(resource, instance.name());
        }
    }

    /** Which instance a context is, and its Redis. */
    record Instance(String name, String redisUrl) {
    }

    private static AnnotationConfigApplicationContext start(String instance, FencedResource resource, Class<?>... config) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(Instance.class, () -> new Instance(instance, redis.uri()));
        context.registerBean(FencedResource.class, () -> resource);
        context.register(config);
        context.refresh();
        return context;
    }

    @Test
    void twoContextsRunTheJobOneAtATime() {
        try (FencedResource resource = FencedResource.start();
             AnnotationConfigApplicationContext a = start("a", resource, Service.class);
             AnnotationConfigApplicationContext b = start("b", resource, Service.class)) {
            assertThat(a.getBean(LockProvider.class)).isInstanceOf(CoordisLockProvider.class);
            ReportJob jobA = a.getBean(ReportJob.class);
            ReportJob jobB = b.getBean(ReportJob.class);
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> jobA.runs() >= 5 && jobB.runs() >= 5 && jobA.runs() + jobB.runs() >= 30);
            a.close();
            b.close();
            FencedResource.Report report = resource.report();
            assertThat(report.overlaps()).as(report.toString()).isZero();
            assertThat(report.fenceRegressions()).as(report.toString()).isZero();
            assertThat(report.violations()).as(report.toString()).isZero();
            assertThat(report.protocolErrors()).as(report.toString()).isZero();
        }
    }

    @Test
    void aLockProviderOfTheApplicationWinsAndNoCoordisMeansNoProvider() {
        try (FencedResource resource = FencedResource.start();
             AnnotationConfigApplicationContext own = start("own", resource, Service.class, MigrationConfiguration.class);
             AnnotationConfigApplicationContext none = new AnnotationConfigApplicationContext(Bare.class)) {
            assertThat(own.getBeansOfType(LockProvider.class)).hasSize(1).containsOnlyKeys("lockProvider");
            assertThat(own.getBean(LockProvider.class).toString()).contains("job-lock:default:");
            await().atMost(Duration.ofSeconds(10)).until(() -> own.getBean(ReportJob.class).runs() > 0);
            assertThat(none.getBeansOfType(LockProvider.class)).isEmpty();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration(CoordisShedLockAutoConfiguration.class)
    static class Bare {
    }
}
