package io.coordis.internal.lock;

import io.coordis.CoordisException;
import io.coordis.internal.Durations;
import io.coordis.internal.Hosts;
import io.coordis.internal.redis.LuaScript;
import io.coordis.internal.redis.Node;
import io.coordis.internal.redis.Replies;
import io.coordis.lock.ForcedUnlock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Runs {@code force-unlock.lua} on one node for any kind of lock, and reads its answer. The audit entry
 * names this process ({@code user@host:pid}) as the one who forced it.
 */
final class Forcing {
    static final LuaScript FORCE = LuaScript.load(Forcing.class, "force-unlock.lua");

    /** One node's answer: forced, held by another value than expected, or not held. */
    record Answer(Outcome outcome, String token, long fence, Optional<String> holderId) {
    }

    enum Outcome { FORCED, OTHER_VALUE, NOT_HELD }

    private Forcing() {
    }

    static String checkReason(String reason) {
        Objects.requireNonNull(reason, "reason must not be null (give \"\" for none)");
        if (reason.length() > 1000) {
            throw new IllegalArgumentException("reason is " + reason.length() + " characters long: keep it under 1000");
        }
        return reason;
    }

    /** Sends the script; {@code expected} empty forces whatever holds the lock. Does not block. */
    static CompletableFuture<Answer> force(Node node, String key, String expected, String reason,
                                           Duration retention) {
        List<String> keys = List.of(key, LockLayout.fenceKey(key), LockLayout.holderKey(key),
                LockLayout.auditKey(key));
        List<String> args = List.of(Hosts.processId(), reason, Long.toString(System.currentTimeMillis()),
                LockLayout.releasedChannel(key), expected, Durations.millis(retention));
        return node.eval(FORCE, keys, args).thenApply(reply -> parse(reply, node));
    }

    private static Answer parse(Object reply, Node node) {
        List<?> r = Replies.list(reply, 1, FORCE, node.address());
        long code = Replies.number(r, 0, FORCE, node.address());
        if (code == 0) {
            return new Answer(Outcome.NOT_HELD, null, 0, Optional.empty());
        }
        if (code == 2) {
            return new Answer(Outcome.OTHER_VALUE, Replies.string(Replies.list(r, 2, FORCE, node.address()), 1, FORCE,
                    node.address()), 0, Optional.empty());
        }
        Replies.list(r, 4, FORCE, node.address());
        return new Answer(Outcome.FORCED, Replies.string(r, 2, FORCE, node.address()),
                Replies.number(r, 1, FORCE, node.address()),
                Optional.ofNullable(Replies.string(r, 3, FORCE, node.address())));
    }

    /** Forces the lock on one node, waiting up to the node's command timeout. */
    static Optional<ForcedUnlock> forceOne(Node node, String key, String expected, String reason,
                                           Duration retention) {
        Answer a;
        try {
            a = node.await(force(node, key, expected, checkReason(reason), retention), node.commandTimeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordisException(node.address(), "interrupted while forcing '" + key + "' open", e);
        }
        if (a.outcome() != Outcome.FORCED) {
            return Optional.empty();
        }
        return Optional.of(new ForcedUnlock(key, a.token(), a.holderId(), a.fence(), 1, 1));
    }
}
