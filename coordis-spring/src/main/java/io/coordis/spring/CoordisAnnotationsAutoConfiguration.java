package io.coordis.spring;

import io.coordis.Coordis;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Import;

/**
 * Turns on {@link Locked}, {@link RateLimited}, {@link LeaderOnly} and {@link CoordisListener} in a Spring Boot
 * application that has a {@link Coordis} bean (its own, or the one {@code coordis-spring-boot-autoconfigure} makes
 * from {@code coordis.*} properties).
 */
@AutoConfiguration(afterName = "io.coordis.spring.boot.autoconfigure.CoordisAutoConfiguration")
@ConditionalOnBean(Coordis.class)
@Import(CoordisAnnotationsConfiguration.class)
public final class CoordisAnnotationsAutoConfiguration {
}
