/**
 * Starts and stops real {@code redis-server} processes: {@link io.coordis.redis.runner.RedisProcess} runs one on
 * a free loopback port in a private directory and stops it by its PID; {@link io.coordis.redis.runner.RedisBinary}
 * finds the executable (a configured path, the {@code PATH}, or the binary shipped in the embedded-redis jar). For
 * development modes and tools; tests use the test kit, which builds on it.
 */
package io.coordis.redis.runner;
