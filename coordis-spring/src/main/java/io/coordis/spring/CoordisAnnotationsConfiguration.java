package io.coordis.spring;

import org.springframework.aop.config.AopConfigUtils;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.Ordered;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The beans behind {@link Locked}, {@link RateLimited}, {@link LeaderOnly} and {@link CoordisListener}, imported by
 * {@link EnableCoordis} and by {@link CoordisAnnotationsAutoConfiguration}. They need a {@code Coordis} bean, which
 * they look up when first used. Advisors rather than AspectJ: Spring AOP proxies the annotated beans (by class, so
 * beans without interfaces work too).
 */
@Configuration(proxyBeanMethods = false)
@Role(BeanDefinition.ROLE_INFRASTRUCTURE)
@Import(CoordisAnnotationsConfiguration.ProxyCreator.class)
class CoordisAnnotationsConfiguration {
    /** Outermost: a method that is skipped because another instance leads does not take its lock. */
    static final int LEADER_ONLY_ORDER = Ordered.LOWEST_PRECEDENCE - 200;
    /** Outside the lock: a call does not hold a lock while it waits for a permit. */
    static final int RATE_LIMITED_ORDER = Ordered.LOWEST_PRECEDENCE - 150;
    static final int LOCKED_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static LeaderCandidates coordisLeaderCandidates() {
        return new LeaderCandidates();
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AnnotationAdvisor<String> coordisLeaderOnlyAdvisor(LeaderCandidates coordisLeaderCandidates) {
        return new AnnotationAdvisor<>(new LeaderOnlyAdvice(coordisLeaderCandidates), LEADER_ONLY_ORDER);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AnnotationAdvisor<LockedAdvice.Settings> coordisLockedAdvisor() {
        return new AnnotationAdvisor<>(new LockedAdvice(), LOCKED_ORDER);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static AnnotationAdvisor<RateLimitedAdvice.Settings> coordisRateLimitedAdvisor() {
        return new AnnotationAdvisor<>(new RateLimitedAdvice(), RATE_LIMITED_ORDER);
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static ListenerContainers coordisListenerContainers() {
        return new ListenerContainers();
    }

    /**
     * Registers Spring's infrastructure auto-proxy creator unless the context has one already (Boot's
     * {@code AopAutoConfiguration}, {@code @EnableAspectJAutoProxy}, {@code @EnableTransactionManagement} all
     * register one), proxying by class.
     */
    static final class ProxyCreator implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
            AopConfigUtils.forceAutoProxyCreatorToUseClassProxying(registry);
        }
    }
}
