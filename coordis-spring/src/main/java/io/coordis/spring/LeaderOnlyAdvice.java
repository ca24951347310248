package io.coordis.spring;

import io.coordis.election.ElectionOptions;
import io.coordis.election.Leadership;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;

/** Runs {@link LeaderOnly} methods only while this instance's candidate leads their election. */
final class LeaderOnlyAdvice implements AnnotationAdvisor.Advice<String> {
    private static final Logger log = LoggerFactory.getLogger(LeaderOnlyAdvice.class);
    private static final String ANNOTATION = "@LeaderOnly";

    private final LeaderCandidates candidates;

    LeaderOnlyAdvice(LeaderCandidates candidates) {
        this.candidates = candidates;
    }

    @Override
    public Object invoke(MethodInvocation invocation, Method method, String election, Attributes attributes)
            throws Throwable {
        Optional<Leadership> leadership = candidates.leadership(election);
        if (leadership.isEmpty()) {
            log.trace("not leading election '{}': skipped {}", election, method.getName());
            return Attributes.skipped(method);
        }
        CoordisContext.Scope scope = CoordisContext.enter(leadership.get());
        try {
            return invocation.proceed();
        } finally {
            scope.close();
        }
    }

    /** The method's election, declared to the candidates on first sight (when the bean is proxied). */
    @Override
    public Optional<String> settings(Method method, Attributes attributes) {
        LeaderOnly leaderOnly = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
        if (leaderOnly == null) {
            return Optional.empty();
        }
        String name = attributes.text(leaderOnly.value(), ANNOTATION, "value", method);
        Duration ttl = attributes.duration(leaderOnly.ttl(), ANNOTATION, "ttl", method);
        Duration checked = Attributes.option(ANNOTATION, method,
                () -> ttl == null ? ElectionOptions.DEFAULT_TTL : ElectionOptions.defaults().withTtl(ttl).ttl());
        Attributes.checkSkippable(ANNOTATION, method);
        candidates.declare(name, checked, Attributes.describe(method));
        return Optional.of(name);
    }
}
