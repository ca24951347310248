package io.coordis.spring;

import org.springframework.context.annotation.Import;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Turns on {@link Locked}, {@link RateLimited}, {@link LeaderOnly} and {@link CoordisListener} in an application
 * context without Spring Boot (with Boot, {@link CoordisAnnotationsAutoConfiguration} does it). The context must
 * define a {@code io.coordis.Coordis} bean.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Import(CoordisAnnotationsConfiguration.class)
public @interface EnableCoordis {
}
