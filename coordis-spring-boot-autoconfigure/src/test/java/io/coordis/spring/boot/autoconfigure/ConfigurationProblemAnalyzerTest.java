package io.coordis.spring.boot.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigurationProblemAnalyzerTest {
    @Test
    void registeredForSpringBootsFailureReports() {
        // some of Boot's own analyzers need arguments that only a running application supplies: skip those
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class,
                        SpringFactoriesLoader.ArgumentResolver.none(),
                        SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { })))
                .hasAtLeastOneElementOfType(ConfigurationProblemAnalyzer.class);
    }

    @Test
    void findsTheProblemInsideBeanCreationFailures() {
        ConfigurationProblem problem = new ConfigurationProblem("coordis.urls has 2 URLs", "Give one URL");
        FailureAnalysis analysis = new ConfigurationProblemAnalyzer()
                .analyze(new BeanCreationException("coordis", "Error creating bean", problem));
        assertThat(analysis.getDescription()).isEqualTo("Coordis: coordis.urls has 2 URLs");
        assertThat(analysis.getAction()).isEqualTo("Give one URL");
        assertThat(analysis.getCause()).isSameAs(problem);
    }

    @Test
    void leavesOtherFailuresToOtherAnalyzers() {
        assertThat(new ConfigurationProblemAnalyzer().analyze(new IllegalStateException("x"))).isNull();
    }
}
