package io.coordis.spring;

import io.coordis.Coordis;
import io.coordis.testkit.Prefixed;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;

import java.util.Map;

/**
 * Real application contexts for the tests, each with its own Coordis client on the test's Redis (with the run's key
 * prefix) and an {@code instance} property that names it.
 */
final class TestContexts {
    private TestContexts() {
    }

    /** Starts a context of {@code classes}: configurations, or beans (whose constructors may take {@code @Value}s). */
    static AnnotationConfigApplicationContext start(String instance, String redisUri, Class<?>... classes) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
                Map.of("instance", instance, "coordis.test.url", redisUri)));
        context.register(ClientConfiguration.class);
        context.register(classes);
        context.refresh();
        return context;
    }

    /** The application's Coordis bean, as the examples define it until the starter makes it from properties. */
    @Configuration(proxyBeanMethods = false)
    @EnableCoordis
    static class ClientConfiguration {
        @Bean(destroyMethod = "close")
        Coordis coordis(Environment env) {
            return Coordis.builder().url(env.getRequiredProperty("coordis.test.url")).keyPrefix(Prefixed.prefix())
                    .connect();
        }
    }
}
