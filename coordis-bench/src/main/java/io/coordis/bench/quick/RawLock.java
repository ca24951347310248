package io.coordis.bench.quick;

import io.coordis.bench.LettuceLocking;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisScriptingCommands;
import io.lettuce.core.api.sync.RedisStringCommands;

import java.util.function.Supplier;

/**
 * The lock the quick loops hold Coordis to, in raw Lettuce commands: {@code SET key token NX PX 30000}, then
 * the compare-and-delete script by {@code EVALSHA}.
 */
final class RawLock {
    static final String DELETE_IF_OURS = LettuceLocking.DELETE_IF_OURS;

    private RawLock() {
    }

    /** As {@link #cycle(RedisStringCommands, String, Supplier)}, releasing by DELETE_IF_OURS, loaded here. */
    static <C extends RedisStringCommands<String, String> & RedisScriptingCommands<String, String>> Runnable cycle(
            C raw, Supplier<String> key) {
        return cycle(raw, raw.scriptLoad(DELETE_IF_OURS), key);
    }

    /**
     * One uncontended acquire and release on {@code raw}, on the key {@code key} names for it, released by the
     * loaded script {@code sha} (DELETE_IF_OURS, or one like it); fails when the key is busy.
     */
    static <C extends RedisStringCommands<String, String> & RedisScriptingCommands<String, String>> Runnable cycle(
            C raw, String sha, Supplier<String> key) {
        return () -> {
            String k = key.get();
            String token = LettuceLocking.token();
            if (!"OK".equals(raw.set(k, token, SetArgs.Builder.nx().px(30_000)))) {
                throw new IllegalStateException("raw lock busy");
            }
            raw.evalsha(sha, ScriptOutputType.INTEGER, new String[]{k}, token);
        };
    }
}
