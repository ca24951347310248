/**
 * Spring Boot auto-configuration of a Coordis client from the {@code coordis.*} properties
 * ({@link io.coordis.spring.boot.autoconfigure.CoordisProperties}), with its Actuator endpoint, health indicator and
 * Micrometer metrics.
 */
package io.coordis.spring.boot.autoconfigure;
