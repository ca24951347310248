package io.coordis.example;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Start two of these against one Redis (README, "Spring Boot"): the report is written by one instance at a time,
 * housekeeping runs in the leader only, and both consume the orders that both take.
 */
@SpringBootApplication
@EnableScheduling
public class ExampleApplication {
    public static void main(String[] args) {
        SpringApplication.run(ExampleApplication.class, args);
    }
}
