package io.coordis.spring.boot.autoconfigure;

import io.coordis.Coordis;

/**
 * Changes the builder of the auto-configured {@link Coordis} client after the {@code coordis.*} properties were
 * applied and before it connects, e.g. to set a {@link io.coordis.Ticker} or the largest signal. Beans of this
 * type run in their {@link org.springframework.core.Ordered order}.
 */
@FunctionalInterface
public interface CoordisBuilderCustomizer {
    /**
     * Changes the builder; called once, on the thread that creates the client.
     *
     * @param builder the builder, with the properties applied
     */
    void customize(Coordis.Builder builder);
}
