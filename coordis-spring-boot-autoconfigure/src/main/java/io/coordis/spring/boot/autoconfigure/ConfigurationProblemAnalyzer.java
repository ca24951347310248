package io.coordis.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a {@link ConfigurationProblem} as a description and an action, without the stack trace. */
final class ConfigurationProblemAnalyzer extends AbstractFailureAnalyzer<ConfigurationProblem> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConfigurationProblem cause) {
        return new FailureAnalysis("Coordis: " + cause.getMessage(), cause.action(), cause);
    }
}
