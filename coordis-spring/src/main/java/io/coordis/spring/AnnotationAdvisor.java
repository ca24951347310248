package io.coordis.spring;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Advises the methods that carry one of the annotations: reads a method's settings once, when its bean is proxied
 * (so a wrong attribute fails at start-up), and runs each call through the annotation's {@link Advice}.
 *
 * @param <S> a method's settings, as the advice reads them from its annotation
 */
final class AnnotationAdvisor<S> extends StaticMethodMatcherPointcutAdvisor implements MethodInterceptor, BeanFactoryAware {
    private static final long serialVersionUID = 1L;

    /** What one annotation does. */
    interface Advice<S> {
        /**
         * The settings of {@code method}, empty when it does not carry the annotation.
         *
         * @throws IllegalStateException for an attribute that is wrong, naming it and what to write instead
         */
        Optional<S> settings(Method method, Attributes attributes);

        /** Runs {@code invocation} of {@code method} (the target's own, most specific one) under its settings. */
        Object invoke(MethodInvocation invocation, Method method, S settings, Attributes attributes) throws Throwable;
    }

    private final transient Advice<S> advice;
    private final transient Map<Method, Optional<S>> settings = new ConcurrentHashMap<>();
    private transient Attributes attributes;

    AnnotationAdvisor(Advice<S> advice, int order) {
        this.advice = advice;
        setAdvice(this);
        setOrder(order);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.attributes = new Attributes(beanFactory);
    }

    @Override
    public boolean matches(Method method, Class<?> targetClass) {
        return settings(AopUtils.getMostSpecificMethod(method, targetClass)).isPresent();
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Method method = invocation.getMethod();
        if (invocation.getThis() != null) {
            method = AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(invocation.getThis()));
        }
        Optional<S> found = settings(method);
        if (found.isEmpty()) {
            return invocation.proceed();
        }
        return advice.invoke(invocation, method, found.get(), attributes);
    }

    private Optional<S> settings(Method method) {
        return settings.computeIfAbsent(method, m -> advice.settings(m, attributes));
    }
}
