package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With Spring Boot Actuator: the {@code coordis} health indicator ({@code management.health.coordis.enabled})
 * and the read-only {@code /actuator/coordis} endpoint (expose it with
 * {@code management.endpoints.web.exposure.include}).
 */
@AutoConfiguration(after = CoordisAutoConfiguration.class)
@ConditionalOnClass(Coordis.class)
@ConditionalOnBean(Coordis.class)
public class CoordisActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("coordis")
    static class HealthConfiguration {
        @Bean
        @ConditionalOnMissingBean(name = "coordisHealthIndicator")
        HealthIndicator coordisHealthIndicator(Coordis coordis) {
            return new CoordisHealthIndicator(coordis);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
    @ConditionalOnAvailableEndpoint(CoordisEndpoint.class)
    static class EndpointConfiguration {
        @Bean
        @ConditionalOnMissingBean
        CoordisEndpoint coordisEndpoint(Coordis coordis) {
            return new CoordisEndpoint(coordis);
        }
    }
}
