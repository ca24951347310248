/**
 * Checks of a deployment for what Coordis needs: {@link io.coordis.doctor.Doctor} reads each server's version,
 * role, eviction policy, persistence, the ACL user's rights and the clocks, and reports
 * {@link io.coordis.doctor.Finding}s with what to fix; it also finds and removes keys of the old per-name layout.
 */
package io.coordis.doctor;
