package io.coordis.spring.boot.autoconfigure;

/**
 * Start-up refused because of the configuration: what is wrong (naming the property) and what to write
 * instead. {@link ConfigurationProblemAnalyzer} turns it into Boot's short failure report.
 */
final class ConfigurationProblem extends RuntimeException {
    private final String action;

    ConfigurationProblem(String description, String action) {
        this(description, action, null);
    }

    ConfigurationProblem(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    String action() {
        return action;
    }
}
