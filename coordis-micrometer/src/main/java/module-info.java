/**
 * Micrometer meters and observations for a Coordis client ({@code io.coordis.micrometer.CoordisMetrics}), without
 * Spring. Its API names Micrometer's registry and observation types, so both are required transitively.
 */
module io.coordis.micrometer {
    requires transitive io.coordis.core;
    requires transitive micrometer.core;
    requires transitive micrometer.observation;
    requires org.slf4j;

    exports io.coordis.micrometer;
}
