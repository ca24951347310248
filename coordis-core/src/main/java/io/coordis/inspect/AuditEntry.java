package io.coordis.inspect;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One forced unlock recorded in a lock's audit list ({@code {name}:audit}, newest first), written as a
 * JSON object {@code {"at":ms,"by":"user@host:pid","action":"force-unlock","reason":"...","holder":"...",
 * "fence":n}}. Fields that are missing or unreadable are empty; {@link #raw()} keeps the entry as stored.
 *
 * @param at     when it was forced
 * @param by     who forced it ({@code user@host:pid})
 * @param action what was done ({@code force-unlock})
 * @param reason the reason given (may be empty)
 * @param holder the holder that was removed ({@code unknown} for a foreign holder)
 * @param fence  the fencing counter after the forced unlock raised it
 * @param raw    the entry exactly as stored
 */
public record AuditEntry(Optional<Instant> at, Optional<String> by, Optional<String> action,
                         Optional<String> reason, Optional<String> holder, OptionalLong fence, String raw) {

    static AuditEntry parse(String raw) {
        java.util.Map<String, Object> f = FlatJson.parse(raw);
        return new AuditEntry(number(f, "at").map(Instant::ofEpochMilli), text(f, "by"), text(f, "action"),
                text(f, "reason"), text(f, "holder"),
                number(f, "fence").map(OptionalLong::of).orElse(OptionalLong.empty()), raw);
    }

    private static Optional<String> text(java.util.Map<String, Object> f, String name) {
        return f.get(name) instanceof String s ? Optional.of(s) : Optional.empty();
    }

    private static Optional<Long> number(java.util.Map<String, Object> f, String name) {
        return f.get(name) instanceof Long n ? Optional.of(n) : Optional.empty();
    }
}
