package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.lock.LockOptions;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Boot auto-configuration: with a {@link Coordis} bean and Spring Integration on the class path, a
 * {@link CoordisLockRegistry} unless the application has a {@link LockRegistry} of its own, and, when the
 * application defines a {@link Candidate}, a {@link CoordisLeaderInitiator} for it unless it has an initiator of its
 * own. The registry's key is the property {@code coordis.integration.registry-key} (default
 * {@value #DEFAULT_REGISTRY_KEY}); its locks take the application's {@link LockOptions} bean (the starter makes one
 * from {@code coordis.lock.*}), else the defaults.
 */
@AutoConfiguration(afterName = "io.coordis.spring.boot.autoconfigure.CoordisAutoConfiguration")
@ConditionalOnClass(LockRegistry.class)
@ConditionalOnBean(Coordis.class)
public final class CoordisIntegrationAutoConfiguration {
    /** The registry key when the property {@code coordis.integration.registry-key} is not set. */
    public static final String DEFAULT_REGISTRY_KEY = "spring-integration";

    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    CoordisLockRegistry coordisLockRegistry(Coordis coordis, Environment environment,
                                            ObjectProvider<LockOptions> options) {
        return new CoordisLockRegistry(coordis,
                environment.getProperty("coordis.integration.registry-key", DEFAULT_REGISTRY_KEY),
                options.getIfAvailable(LockOptions::defaults));
    }

    @Bean
    @ConditionalOnBean(Candidate.class)
    @ConditionalOnMissingBean({CoordisLeaderInitiator.class, LockRegistryLeaderInitiator.class})
    CoordisLeaderInitiator coordisLeaderInitiator(Coordis coordis, Candidate candidate) {
        return new CoordisLeaderInitiator(coordis, candidate);
    }
}
