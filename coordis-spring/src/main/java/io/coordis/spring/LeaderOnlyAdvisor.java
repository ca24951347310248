package io.coordis.spring;

import io.coordis.election.ElectionOptions;
import io.coordis.election.Leadership;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Runs {@link LeaderOnly} methods only while this instance's candidate leads their election. */
final class LeaderOnlyAdvisor extends StaticMethodMatcherPointcutAdvisor implements MethodInterceptor, BeanFactoryAware {
    private static final long serialVersionUID = 1L;
    private static final Logger log = LoggerFactory.getLogger(LeaderOnlyAdvisor.class);
    private static final String ANNOTATION = "@LeaderOnly";

    private final transient LeaderCandidates candidates;
    private final transient Map<Method, Optional<String>> elections = new ConcurrentHashMap<>();
    private transient Attributes attributes;

    LeaderOnlyAdvisor(LeaderCandidates candidates) {
        this.candidates = candidates;
        setAdvice(this);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.attributes = new Attributes(beanFactory);
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return election(AopUtils.getMostSpecificMethod(method, targetClass)).isPresent();
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        if (invocation.getThis() != null) {
            method = AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(invocation.getThis()));
        }
        Optional<String> name = election(method);
        if (name.isEmpty()) {
            return invocation.proceed();
        }
        Optional<Leadership> leadership = candidates.leadership(name.get());
        if (leadership.isEmpty()) {
            log.trace("not leading election '{}': skipped {}", name.get(), method.getName());
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
    private Optional<String> election(Method method) {
        return elections.computeIfAbsent(method, m -> {
            LeaderOnly leaderOnly = AnnotatedElementUtils.findMergedAnnotation(m, LeaderOnly.class);
            if (leaderOnly == null) {
                return Optional.empty();
            }
            String name = attributes.text(leaderOnly.value(), ANNOTATION, "value", m);
            Duration ttl = attributes.duration(leaderOnly.ttl(), ANNOTATION, "ttl", m);
            Duration checked = Attributes.option(ANNOTATION, m,
                    () -> ttl == null ? ElectionOptions.DEFAULT_TTL : ElectionOptions.defaults().withTtl(ttl).ttl());
            Attributes.checkSkippable(ANNOTATION, m);
            candidates.declare(name, checked, Attributes.describe(m));
            return Optional.of(name);
        });
    }
}
