package io.coordis.spring;

import io.coordis.Coordis;
import io.coordis.lock.LockOptions;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.format.datetime.standard.DurationFormatterUtils;
import org.springframework.util.ClassUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Reads the annotations' attributes: resolves {@code ${...}} placeholders, parses durations, and names the method
 * and attribute in every error. Also what a skipped method answers.
 */
final class Attributes {
    private final BeanFactory beanFactory;
    private volatile Coordis coordis;
    private volatile LockOptions lockOptions;

    Attributes(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** The application's client, looked up on first use (it may be defined after the annotations' beans). */
    Coordis coordis() {
        Coordis c = coordis;
        if (c == null) {
            c = beanFactory.getBean(Coordis.class);
            coordis = c;
        }
        return c;
    }

    /**
     * The options the annotations' locks start from: the application's {@link LockOptions} bean when it has exactly
     * one (the Spring Boot starter makes it from {@code coordis.lock.*}), else the defaults; looked up on first use.
     */
    LockOptions lockOptions() {
        LockOptions o = lockOptions;
        if (o == null) {
            o = beanFactory.getBeanProvider(LockOptions.class).getIfUnique(LockOptions::defaults);
            lockOptions = o;
        }
        return o;
    }

    BeanFactory beanFactory() {
        return beanFactory;
    }

    /** {@code value} with its {@code ${...}} placeholders resolved. */
    String resolve(String value) {
        if (beanFactory instanceof ConfigurableBeanFactory c && value.contains("${")) {
            String resolved = c.resolveEmbeddedValue(value);
            return resolved != null ? resolved : value;
        }
        return value;
    }

    /** The resolved, non-blank text of an attribute. */
    String text(String value, String annotation, String attribute, Method method) {
        String resolved = resolve(value).strip();
        if (resolved.isEmpty()) {
            throw new IllegalStateException(annotation + " on " + describe(method) + " has an empty " + attribute
                    + " (\"" + value + "\"); name it, e.g. " + attribute + " = \"reports:nightly\"");
        }
        return resolved;
    }

    /** A duration attribute such as {@code "30s"}, {@code "250ms"}, {@code "PT1M"}; {@code null} when empty. */
    Duration duration(String value, String annotation, String attribute, Method method) {
        String resolved = resolve(value).strip();
        if (resolved.isEmpty()) {
            return null;
        }
        Duration d;
        try {
            d = DurationFormatterUtils.detectAndParse(resolved);
        } catch (RuntimeException e) {
            throw new IllegalStateException(annotation + " on " + describe(method) + " has " + attribute + " = \""
                    + value + "\", which is not a duration; write it like \"30s\", \"250ms\", \"2m\" or \"PT30S\"", e);
        }
        if (d.isNegative()) {
            throw new IllegalStateException(annotation + " on " + describe(method) + " has a negative " + attribute
                    + " (\"" + value + "\"); write a positive duration like \"30s\"");
        }
        return d;
    }

    /** A checked option: {@code check} throws {@link IllegalArgumentException}s, reported against the method. */
    static <T> T option(String annotation, Method method, Supplier<T> check) {
        try {
            return check.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(annotation + " on " + describe(method) + ": " + e.getMessage(), e);
        }
    }

    /** {@code Type.method(ParamType, ...)}, for messages. */
    static String describe(Method method) {
        StringBuilder s = new StringBuilder(ClassUtils.getUserClass(method.getDeclaringClass()).getSimpleName())
                .append('.').append(method.getName()).append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            s.append(i > 0 ? ", " : "").append(types[i].getSimpleName());
        }
        return s.append(')').toString();
    }

    /**
     * Checks that a method that may be skipped can answer "skipped": void, a reference type ({@code null}) or
     * {@code Optional} (empty).
     */
    static void checkSkippable(String annotation, Method method) {
        Class<?> type = method.getReturnType();
        if (type.isPrimitive() && type != void.class) {
            throw new IllegalStateException(annotation + " on " + describe(method) + ": the method returns " + type
                    + ", which cannot say that it was skipped; return " + ClassUtils.resolvePrimitiveIfNecessary(type)
                    .getSimpleName() + " (null when skipped) or Optional (empty when skipped)");
        }
    }

    /** What a skipped method answers: {@code Optional.empty()} for an {@code Optional}, else {@code null}. */
    static Object skipped(Method method) {
        return method.getReturnType() == Optional.class ? Optional.empty() : null;
    }
}
