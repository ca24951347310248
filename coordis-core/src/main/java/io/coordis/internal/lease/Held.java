package io.coordis.internal.lease;

import io.coordis.Telemetry;
import io.coordis.internal.Named;
import io.coordis.internal.Timer;
import io.coordis.internal.redis.LuaScript;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A handle on a claim that lives on a {@link LeaseSession} (a lock's lease, a leadership): whether it is held,
 * the validity left, and the loss signal completing with the handle itself. The handle starts its session
 * last in its constructor ({@link #hold}) and hears of a loss through {@link #onLoss}. Thread-safe.
 *
 * @param <H> the handle's public type, as {@link #lost()} completes with it
 */
public abstract class Held<H> extends Named {
    /**
     * Reads who holds a claim ({@code claim.lua}): keys, the claim's key and its details hash; arguments, the
     * details' identity field and then the fields to return.
     */
    public static final LuaScript READ = LuaScript.load(Held.class, "claim.lua");

    private volatile LeaseSession session;
    private volatile H self;
    /** Made on the first {@link #lost()}: most handles are released without anybody asking. */
    private volatile CompletionStage<H> lost;

    protected Held(String kind, String name, String key) {
        super(kind, name, key);
    }

    /**
     * Starts the session of this handle ({@code self}); called once, last in the constructor, since the session
     * may report a loss from then on. {@code telemetry} hears of it as a {@code claim} on this handle's name.
     */
    protected final void hold(H self, Timer timer, String what, long start, LeaseSession.Terms terms,
                              LeaseSession.Renewal renewal, Telemetry telemetry, Telemetry.Claim claim) {
        LeaseSession started = new LeaseSession(timer, what, start, terms, renewal, this::onLoss,
                telemetry.held(claim, name));
        this.self = self;
        session = started;
    }

    /** Told once, on the thread that noticed, before {@link #lost()} completes; must not block. */
    protected abstract void onLoss(Telemetry.Loss why);

    protected final LeaseSession session() {
        return session;
    }

    public final boolean isHeld() {
        return session.isHeld();
    }

    public final Duration remainingValidity() {
        return session.remaining();
    }

    public final CompletionStage<H> lost() {
        CompletionStage<H> l = lost;
        if (l == null) {
            synchronized (this) {
                l = lost;
                if (l == null) {
                    H handle = self;
                    l = session.lost().thenApply(v -> handle);
                    lost = l;
                }
            }
        }
        return l;
    }
}
