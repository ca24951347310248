package io.coordis.spring;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link CoordisAnnotationsAutoConfiguration} in Spring Boot, with and without a {@link Coordis} bean. */
class AutoConfigurationIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone().noFlush();

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(AopAutoConfiguration.class, CoordisAnnotationsAutoConfiguration.class));

    @Configuration(proxyBeanMethods = false)
    static class Client {
        @Bean(destroyMethod = "close")
        Coordis coordis() {
            return Coordis.builder().url(redis.uri()).keyPrefix(Prefixed.prefix()).connect();
        }

        @Bean
        Job job() {
            return new Job();
        }
    }

    public static class Job {
        @Locked(name = "boot:job", whenBusy = WhenBusy.SKIP)
        public Long run() {
            return CoordisContext.currentLease().map(Lease::fencingToken).orElse(null);
        }
    }

    @Test
    void isListedForSpringBoot() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()).getCandidates())
                .contains(CoordisAnnotationsAutoConfiguration.class.getName());
    }

    @Test
    void withACoordisBeanLockedMethodsRunUnderTheirLockThroughBootsProxies() {
        runner.withUserConfiguration(Client.class).run(context -> {
            assertThat(context).hasNotFailed().hasBean("coordisLockedAdvisor").hasSingleBean(LeaderCandidates.class)
                    .hasSingleBean(ListenerContainers.class);
            assertThat(context.getBean(Job.class).run()).as("ran with a fencing number").isPositive();
        });
    }

    @Test
    void withoutACoordisBeanItStaysOut() {
        runner.withBean(Job.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("coordisLockedAdvisor");
            assertThat(context.getBean(Job.class).run()).as("no advice: a plain call").isNull();
        });
    }
}
