package io.coordis.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method (typically {@code @Scheduled}) only in the current leader of the election
 * {@link #value()}; elsewhere the call returns at once without running it ({@code null}, or
 * {@code Optional.empty()} for a method returning {@code Optional}).
 *
 * <p>Each election name gets one candidate per application context, started with the context (it campaigns in
 * the background and campaigns again after losing) and resigned when the context closes, so another instance
 * takes over at once; if this process dies instead, another takes over once {@link #ttl()} has passed.
 * Inside the method, {@link CoordisContext#term()} answers the leadership's term, which only grows: pass it to
 * what the method writes. A leadership that ends while the method runs does not interrupt it; check
 * {@code CoordisContext.currentLeadership()} in long loops, and let the term fence the writes.
 *
 * <p>The name accepts {@code ${...}} placeholders; the client's key prefix goes before it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface LeaderOnly {
    /**
     * The election's name; methods naming the same election share one candidate.
     *
     * @return the election's name
     */
    String value();

    /**
     * How long a leadership lives without renewal, so how long the job pauses when the leader's process dies;
     * default 15s. Methods naming the same election must agree on it.
     *
     * @return the TTL, as a duration such as {@code 15s}
     */
    String ttl() default "15s";
}
