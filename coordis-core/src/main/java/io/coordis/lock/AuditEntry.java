package io.coordis.lock;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One forced unlock recorded in a lock's audit list ({@code {name}:audit}, newest first), written as a
 * JSON object {@code {"at":ms,"by":"user@host:pid","action":"force-unlock","reason":"...","holder":"...",
 * "fence":n}} by {@code force-unlock.lua} and decoded by Redis for the inspector. Fields that are missing or unreadable are empty; {@link #raw()} keeps the
 * entry as stored.
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
}
