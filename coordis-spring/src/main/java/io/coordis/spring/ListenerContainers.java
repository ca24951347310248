package io.coordis.spring;

import io.coordis.queue.Delivery;
import io.coordis.queue.QueueOptions;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Finds {@link CoordisListener} methods on the context's beans, and starts and stops their consumers with the
 * context (after its singletons are ready; stopped after the default phase, so web servers and schedulers stop
 * feeding work first).
 */
final class ListenerContainers implements BeanPostProcessor, SmartLifecycle, BeanFactoryAware {
    private static final String ANNOTATION = "@CoordisListener";
    /** How long a stop waits for the messages in hand before it interrupts them. */
    static final Duration DRAIN = Duration.ofSeconds(30);

    private final List<QueueListener> listeners = new ArrayList<>();
    private Attributes attributes;
    private boolean running;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.attributes = new Attributes(beanFactory);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        Map<Method, CoordisListener> found = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<CoordisListener>) m ->
                        AnnotatedElementUtils.findMergedAnnotation(m, CoordisListener.class));
        for (Map.Entry<Method, CoordisListener> e : found.entrySet()) {
            QueueListener listener = listener(bean, e.getKey(), e.getValue());
            synchronized (this) {
                listeners.add(listener);
                if (running) {
                    listener.start(attributes);
                }
            }
        }
        return bean;
    }

    private QueueListener listener(Object bean, Method method, CoordisListener annotation) {
        String where = ANNOTATION + " on " + Attributes.describe(method);
        Class<?>[] params = method.getParameterTypes();
        if (params.length != 1 || !(params[0] == String.class || params[0] == byte[].class
                || params[0] == Delivery.class)) {
            throw new IllegalStateException(where + " must take exactly one parameter: String (the payload as "
                    + "UTF-8), byte[] (the payload) or Delivery (its id and attempts)");
        }
        String queue = attributes.text(annotation.queue(), ANNOTATION, "queue", method);
        if (annotation.concurrency() < 1 || annotation.concurrency() > 1024) {
            throw new IllegalStateException(where + " has concurrency = " + annotation.concurrency()
                    + "; write a number of threads from 1 to 1024");
        }
        Duration backoff = attributes.duration(annotation.backoff(), ANNOTATION, "backoff", method);
        Duration heartbeat = attributes.duration(annotation.heartbeatTtl(), ANNOTATION, "heartbeatTtl", method);
        QueueOptions options = Attributes.option(ANNOTATION, method, () -> {
            QueueOptions o = QueueOptions.defaults().withMaxAttempts(annotation.maxAttempts())
                    .withSlots(annotation.concurrency());
            return heartbeat == null ? o : o.withHeartbeatTtl(heartbeat);
        });
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        ReflectionUtils.makeAccessible(invocable);
        return new QueueListener(bean, invocable, queue, options, annotation.concurrency(),
                backoff == null ? Duration.ZERO : backoff);
    }

    @Override
    public synchronized void start() {
        running = true;
        listeners.forEach(l -> l.start(attributes));
    }

    @Override
    public void stop() {
        List<QueueListener> all;
        synchronized (this) {
            running = false;
            all = new ArrayList<>(listeners);
        }
        all.parallelStream().forEach(l -> l.stop(DRAIN));
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 512;
    }
}
