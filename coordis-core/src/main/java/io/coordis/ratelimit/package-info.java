/**
 * Rate limiting on Redis: a {@link io.coordis.ratelimit.RateLimiter} grants at most a {@link
 * io.coordis.ratelimit.RateLimit}'s permits per period to every process that names it, with an optional burst,
 * decided by one script on Redis's clock so that clients' clocks do not matter. Make limiters with
 * {@link io.coordis.Coordis#rateLimiter}; every type here is thread-safe.
 */
package io.coordis.ratelimit;
