package io.coordis.shedlock;

import io.coordis.Coordis;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * A {@link CoordisLockProvider} for ShedLock, with Coordis's key layout and default lock options, when the
 * application has a {@link Coordis} bean (Coordis's Spring Boot starter makes one) and no {@link LockProvider} of
 * its own. To keep ShedLock's Redis layout during a migration, or to set lock options, declare the provider bean.
 */
@AutoConfiguration(afterName = "io.coordis.spring.boot.autoconfigure.CoordisAutoConfiguration")
@ConditionalOnBean(Coordis.class)
@ConditionalOnMissingBean(LockProvider.class)
public class CoordisShedLockAutoConfiguration {

    /**
     * The provider, with Coordis's key layout and default lock options.
     *
     * @param coordis the application's client
     * @return the provider
     */
    @Bean
    public CoordisLockProvider coordisLockProvider(Coordis coordis) {
        return CoordisLockProvider.of(coordis);
    }
}
