/**
 * Micrometer metrics and observations of a Coordis client: {@link io.coordis.micrometer.CoordisMetrics} implements
 * {@link io.coordis.Telemetry}, with bounded name tags, and polls reliable queues' figures into gauges.
 */
package io.coordis.micrometer;
