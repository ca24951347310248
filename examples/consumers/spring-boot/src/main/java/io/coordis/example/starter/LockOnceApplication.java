package io.coordis.example.starter;

import io.coordis.Coordis;
import io.coordis.lock.Lease;

import org.springframework.boot.CommandLineRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

import java.time.Duration;
import java.util.Optional;

/** Takes one lock through the starter's {@link Coordis} bean (URL from {@code coordis.urls}) and exits. */
@SpringBootApplication
public class LockOnceApplication {
    public static void main(String[] args) {
        System.exit(SpringApplication.exit(SpringApplication.run(LockOnceApplication.class, args)));
    }

    @Bean
    CommandLineRunner lockOnce(Coordis coordis) {
        return args -> {
            Optional<Lease> acquired = coordis.lock("consumer:spring-boot").acquire(Duration.ofSeconds(5));
            if (acquired.isEmpty()) {
                throw new IllegalStateException("consumer:spring-boot is busy");
            }
            try (Lease lease = acquired.get()) {
                System.out.println("locked through the Spring Boot starter, fencing number " + lease.fencingToken());
            }
        };
    }
}
