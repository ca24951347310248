package io.coordis.internal.redis;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import java.util.concurrent.CompletableFuture;

/**
 * Runs a {@link LuaScript} by its SHA ({@code EVALSHA}); when the server answers {@code NOSCRIPT} (after a
 * restart, a failover or {@code SCRIPT FLUSH}) it sends the source with {@code EVAL}, which loads it again, on
 * the same connection (on a cluster: to the node that answered). Every script of Coordis runs here. Scripts
 * return arrays (Lua tables), which arrive as {@code List<Object>}.
 */
final class ScriptRunner {
    private ScriptRunner() {
    }

    static <K, V> CompletableFuture<Object> run(RedisClusterAsyncCommands<K, V> c, LuaScript script, K[] keys, V[] args) {
        CompletableFuture<Object> sha = c.<Object>evalsha(script.sha(), ScriptOutputType.MULTI, keys, args).toCompletableFuture();
        // one stage: the answer passes on, and only NOSCRIPT sends the source
        return sha.exceptionallyCompose(failure -> RedisErrors.isNoScript(failure)
                ? c.<Object>eval(script.source(), ScriptOutputType.MULTI, keys, args).toCompletableFuture()
                : CompletableFuture.failedFuture(failure));
    }
}
