package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;
import io.coordis.micrometer.CoordisMetrics;
import io.coordis.queue.QueueOptions;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * With Micrometer, coordis-micrometer and a {@link MeterRegistry} bean: a {@link CoordisMetrics} bean from
 * {@code coordis.metrics.*} (observations too when there is an {@link ObservationRegistry}), made the telemetry of
 * the auto-configured client, and the gauges of the queues in {@code coordis.metrics.queues}.
 * {@code coordis.metrics.enabled=false} switches it off. An application's own {@link CoordisMetrics} bean is used
 * instead of this one; an application's own {@link Coordis} bean gets no telemetry from here.
 */
@AutoConfiguration(after = CoordisAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"})
@ConditionalOnClass({MeterRegistry.class, CoordisMetrics.class})
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "coordis.metrics.enabled", matchIfMissing = true)
@EnableConfigurationProperties(CoordisProperties.class)
public class CoordisMetricsAutoConfiguration {

    /**
     * The client's telemetry for Micrometer, with the name tags of {@code coordis.metrics.tag-names} and the
     * application's observation registry, if it has exactly one.
     *
     * @param registry     where the meters go
     * @param observations the observation registry, if any
     * @param properties   the {@code coordis.*} properties
     * @return the telemetry, closed with the context
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public CoordisMetrics coordisMetrics(MeterRegistry registry, ObjectProvider<ObservationRegistry> observations,
                                         CoordisProperties properties) {
        CoordisMetrics.Builder builder = CoordisMetrics.builder(registry)
                .tagNames(properties.getMetrics().getTagNames());
        observations.ifUnique(builder::observations);
        return builder.build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "coordisMetricsCustomizer")
    CoordisBuilderCustomizer coordisMetricsCustomizer(CoordisMetrics metrics) {
        return builder -> builder.telemetry(metrics);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnBean(Coordis.class)
    @ConditionalOnMissingBean
    QueueGauges coordisQueueGauges(CoordisMetrics metrics, Coordis coordis, ObjectProvider<QueueOptions> options,
                                   CoordisProperties properties) {
        CoordisProperties.Metrics m = properties.getMetrics();
        return new QueueGauges(metrics, coordis, options.getIfUnique(QueueOptions::defaults), m.getQueues(),
                m.getPollInterval());
    }
}
