package io.coordis.spring.integration;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;

import java.util.Map;
import java.util.function.Consumer;

/** Starts real application contexts of a configuration class with properties of their own. */
final class Contexts {
    private Contexts() {
    }

    static AnnotationConfigApplicationContext start(Class<?> configuration, Map<String, Object> properties) {
        return start(configuration, properties, ctx -> {
        });
    }

    static AnnotationConfigApplicationContext start(Class<?> configuration, Map<String, Object> properties,
                                                    Consumer<AnnotationConfigApplicationContext> beforeRefresh) {
        AnnotationConfigApplicationContext ctx = new AnnotationConfigApplicationContext();
        ctx.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", properties));
        ctx.register(configuration);
        beforeRefresh.accept(ctx);
        ctx.refresh();
        return ctx;
    }
}
