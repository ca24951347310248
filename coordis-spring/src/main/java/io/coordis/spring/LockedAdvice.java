package io.coordis.spring;

import io.coordis.lock.DistributedLock;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;

/** Runs {@link Locked} methods under their lock, through {@link DistributedLock#whileLocked}. */
final class LockedAdvice implements AnnotationAdvisor.Advice<LockedAdvice.Settings> {
    private static final Logger log = LoggerFactory.getLogger(LockedAdvice.class);
    private static final String ANNOTATION = "@Locked";
    /** "As long as it takes": far beyond any wait, far below the overflow of a nanosecond deadline. */
    private static final Duration UNBOUNDED = Duration.ofDays(3650);

    @Override
    public Object invoke(MethodInvocation invocation, Method method, Settings s, Attributes attributes) throws Throwable {
        String name = s.name.evaluate(invocation.getArguments(), attributes);
        DistributedLock lock = attributes.coordis().lock(name, s.options(method, attributes));
        Optional<Object[]> ran;
        try {
            ran = lock.whileLocked(s.wait, lease -> call(invocation, lease));
        } catch (Checked c) {
            throw c.getCause();
        }
        if (ran.isPresent()) {
            return ran.get()[0];
        }
        if (s.busy == WhenBusy.WAIT) {
            throw new LockBusyException(name, s.wait, Attributes.describe(method));
        }
        log.debug("lock '{}' is busy: skipped {}", name, Attributes.describe(method));
        return Attributes.skipped(method);
    }

    /** Runs the method with its lease current; the result boxed so that {@code null} still means "it ran". */
    private static Object[] call(MethodInvocation invocation, Lease lease) throws InterruptedException {
        CoordisContext.Scope scope = CoordisContext.enter(lease);
        try {
            return new Object[] {invocation.proceed()};
        } catch (RuntimeException | Error | InterruptedException e) {
            throw e;
        } catch (Throwable t) {
            throw new Checked(t);
        } finally {
            scope.close();
        }
    }

    @Override
    public Optional<Settings> settings(Method method, Attributes attributes) {
        Locked locked = AnnotatedElementUtils.findMergedAnnotation(method, Locked.class);
        return locked == null ? Optional.empty() : Optional.of(new Settings(locked, method, attributes));
    }

    /** A method's annotation, read once: an invalid one fails when the bean is proxied, at start-up. */
    static final class Settings {
        final ArgumentText name;
        /** The annotation's TTL; {@code null} for the base options' TTL. */
        final Duration ttl;
        final Duration wait;
        final WhenBusy busy;
        /** The base options with this method's TTL, made on the first call (the base is a bean). */
        private volatile LockOptions options;

        Settings(Locked locked, Method method, Attributes attributes) {
            String name = attributes.text(locked.name(), ANNOTATION, "name", method);
            this.name = ArgumentText.template(new ArgumentText.Site(ANNOTATION, method, "name", locked.name()), name,
                    "the lock name", "\"order:#{#orderId}\" or \"order:#{#p0}\"");
            this.ttl = attributes.duration(locked.ttl(), ANNOTATION, "ttl", method);
            if (ttl != null) {
                Attributes.option(ANNOTATION, method, () -> LockOptions.defaults().withTtl(ttl));
            }
            WhenBusy stated = locked.whenBusy();
            if (stated == WhenBusy.UNSTATED) {
                if (method.getReturnType() != void.class) {
                    throw new IllegalStateException(ANNOTATION + " on " + Attributes.describe(method) + " must say what "
                            + "happens when the lock is busy, since the method returns a value: add whenBusy = "
                            + "WhenBusy.SKIP (the call answers null, or Optional.empty()) or whenBusy = WhenBusy.WAIT "
                            + "(with maxWait = \"10s\" to bound the wait)");
                }
                stated = WhenBusy.SKIP;
            }
            this.busy = stated;
            Duration w = attributes.duration(locked.maxWait(), ANNOTATION, "maxWait", method);
            this.wait = w != null ? w : busy == WhenBusy.WAIT ? UNBOUNDED : Duration.ZERO;
            if (busy == WhenBusy.SKIP) {
                Attributes.checkSkippable(ANNOTATION, method);
            }
        }

        /** The application's lock options ({@link Attributes#lockOptions()}) with this method's TTL. */
        LockOptions options(Method method, Attributes attributes) {
            LockOptions o = options;
            if (o == null) {
                LockOptions base = attributes.lockOptions();
                o = Attributes.option(ANNOTATION, method, () -> ttl == null ? base : base.withTtl(ttl));
                options = o;
            }
            return o;
        }
    }

    /** Carries a checked exception of the method through the lock's task. */
    private static final class Checked extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Checked(Throwable cause) {
            super("the method threw " + cause, cause);
        }
    }
}
