package io.coordis.example;

import io.coordis.Coordis;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import java.util.List;

/**
 * The application's Coordis client. Delete this class once coordis-spring-boot-starter makes the client from the
 * same {@code coordis.*} properties.
 */
@Configuration(proxyBeanMethods = false)
class CoordisClient {
    @Bean(destroyMethod = "close")
    Coordis coordis(@Value("${coordis.urls:redis://127.0.0.1:6379}") List<String> urls,
                    @Value("${coordis.key-prefix:}") String keyPrefix) {
        return Coordis.builder().urls(urls).keyPrefix(keyPrefix).connect();
    }
}
