package io.coordis.spring.integration;

import io.coordis.Coordis;
import io.coordis.election.ElectionOptions;
import io.coordis.testkit.fault.FencedClient;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.dsl.IntegrationFlow;
import org.springframework.integration.dsl.Pollers;
import org.springframework.integration.leader.AbstractCandidate;
import org.springframework.integration.leader.Candidate;
import org.springframework.integration.leader.Context;

import java.time.Duration;

/**
 * An application with one endpoint in the role {@code cluster}: a poller that writes to the referee with the term
 * it leads in. Its candidate enters the referee when granted and leaves when revoked, so the referee sees two
 * leaders at once if there ever are. Properties: {@code redis.url}, {@code referee} (its address), {@code app} (the
 * candidate's id), {@code ttl} (the election's TTL in ms).
 */
@Configuration(proxyBeanMethods = false)
@EnableIntegration
public class RoleApp {
    static final String ROLE = "cluster";

    @Bean(destroyMethod = "close")
    Coordis coordis(@Value("${redis.url}") String url) {
        return Clients.connect(url);
    }

    @Bean
    RefereedCandidate candidate(@Value("${app}") String app, @Value("${referee}") String referee) {
        return new RefereedCandidate(app, referee);
    }

    @Bean
    CoordisLeaderInitiator leaderInitiator(Coordis coordis, Candidate candidate, @Value("${ttl}") long ttl) {
        return new CoordisLeaderInitiator(coordis, candidate, ElectionOptions.defaults()
                .withTtl(Duration.ofMillis(ttl)));
    }

    @Bean
    IntegrationFlow leaderWork(CoordisLeaderInitiator initiator, @Value("${app}") String app,
                               @Value("${referee}") String referee) {
        FencedClient writer = FencedClient.connect(referee, app);
        return IntegrationFlow.fromSupplier(() -> {
                    long term = initiator.getContext().term();
                    writer.write(term);
                    return term;
                }, e -> e.poller(Pollers.fixedDelay(Duration.ofMillis(20))).role(ROLE).autoStartup(false)
                        .id("leaderWork.poller"))
                .nullChannel();
    }

    /** Enters the referee with its term when granted, leaves it when revoked; prints both lines. */
    static final class RefereedCandidate extends AbstractCandidate {
        private final FencedClient referee;
        private volatile long term;

        RefereedCandidate(String id, String refereeAddress) {
            super(id, ROLE);
            this.referee = FencedClient.connect(refereeAddress, id);
        }

        @Override
        public void onGranted(Context ctx) {
            term = ((LeadershipContext) ctx).term();
            referee.enter(term);
            System.out.println("GRANTED " + getId() + " " + term);
        }

        @Override
        public void onRevoked(Context ctx) {
            referee.exit(term);
            System.out.println("REVOKED " + getId() + " " + term);
        }
    }
}
