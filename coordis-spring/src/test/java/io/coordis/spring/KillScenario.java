package io.coordis.spring;

import io.coordis.testkit.fault.FencedClient;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The application that {@link ProcessKillIT} runs twice, once in a child JVM that it kills with SIGKILL: a leader-only
 * job that enters the referee (over TCP) with its term, and a listener that reports every message it took and processed.
 */
@Configuration(proxyBeanMethods = false)
@EnableScheduling
class KillScenario {
    static final String ELECTION = "kill:leader";
    static final String QUEUE = "kill:work";
    /** Messages processed in this JVM (the child prints them instead, as {@code DONE id}). */
    static final Set<String> processed = ConcurrentHashMap.newKeySet();

    @Bean
    Jobs jobs(@Value("${instance}") String instance, @Value("${referee}") String referee) {
        return new Jobs(instance, referee);
    }

    public static class Jobs {
        private final String instance;
        private final String referee;
        private FencedClient client;

        Jobs(String instance, String referee) {
            this.instance = instance;
            this.referee = referee;
        }

        @Scheduled(fixedDelay = 20)
        @LeaderOnly(value = ELECTION, ttl = "2s")
        public void tick() {
            if (client == null) {
                client = FencedClient.connect(referee, instance); // the scheduler's one thread
            }
            long term = CoordisContext.term();
            client.enter(term);
            client.write(term);
            client.exit(term);
        }

        @CoordisListener(queue = QUEUE, concurrency = 2, heartbeatTtl = "1s")
        public void work(String id) throws InterruptedException {
            boolean child = instance.equals("child");
            if (child) {
                System.out.println("TAKEN " + id);
            }
            Thread.sleep(100);
            if (child) {
                System.out.println("DONE " + id);
            } else {
                processed.add(id);
            }
        }
    }

    /** The child JVM: {@code redisUri refereeAddress}; runs until killed or until its stdin closes. */
    public static void main(String[] args) throws Exception {
        System.setProperty("referee", args[1]);
        try (AnnotationConfigApplicationContext context = TestContexts.start("child", args[0], KillScenario.class)) {
            System.out.println("STARTED");
            while (System.in.read() != -1) {
                // until the parent goes away
            }
        }
    }
}
