package io.coordis.shedlock;

import io.coordis.Coordis;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The README's example of a provider bean of the application's own: ShedLock's Redis key layout, for a migration. */
@Configuration(proxyBeanMethods = false)
class MigrationConfiguration {

    @Bean
    LockProvider lockProvider(Coordis coordis) {
        // keys job-lock:default:<name>, as ShedLock's Redis providers name them
        return CoordisLockProvider.builder(coordis)
                .shedLockLayout("default")
                .build();
    }
}
