package io.coordis.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated bean method only with a permit of the Coordis rate limiter {@link #name()}: every instance of
 * the application, and every other client naming the limiter, share its {@link #limit()}. Each call takes one
 * permit, decided by one script on Redis's clock.
 *
 * <pre>{@code
 * @RateLimited(name = "geocoder", limit = "50/1s")                   // above it: RateLimitedException
 * Location geocode(String address) { ... }
 *
 * @RateLimited(name = "search", limit = "10/1m", key = "#userId")    // 10 a minute for each user
 * List<Hit> search(String userId, String query) { ... }
 *
 * @RateLimited(name = "mailer", limit = "5/1s", whenLimited = WhenBusy.WAIT, maxWait = "10s")
 * void send(Mail mail) { ... }                                       // waits for its turn, up to 10s
 * }</pre>
 *
 * <p><b>Limited.</b> {@link #whenLimited()} says what happens when no permit is due: by default the call throws
 * {@link RateLimitedException}, which names the limiter and says when a permit is due; {@link WhenBusy#SKIP}
 * returns without running the method ({@code null}, or {@code Optional.empty()} for a method returning
 * {@code Optional}); {@link WhenBusy#WAIT} waits for a permit, as long as it takes unless {@link #maxWait()}
 * bounds it. A wait reserves the permit at its due time in the same request and then sleeps until then, so waiting
 * callers take their turns in order; a permit that would not be due within the wait is refused at once, without
 * waiting. With {@link WhenBusy#SKIP} or the default, {@link #maxWait()} lets a call wait that long before it skips
 * or throws.
 *
 * <p><b>Per key.</b> {@link #key()} is a SpEL expression over the arguments ({@code #userId}, or {@code #p0});
 * each of its values has a limiter of its own under the same limit, named {@code name:value}.
 *
 * <p>Name and limit accept {@code ${...}} placeholders; the name may also hold SpEL templates over the arguments,
 * as {@link Locked#name()} does. Every method naming one literal limiter must give it the same limit and burst. A
 * bad attribute stops the context at start-up. The bean must be called through its Spring proxy. The limit is
 * checked outside {@link Locked} on the same method (a call waits for its permit before it waits for the lock)
 * and inside {@link LeaderOnly} (a method skipped for not leading takes no permit).
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimited {
    /**
     * The limiter's name: literal text, {@code ${...}} placeholders and {@code #{...}} SpEL templates.
     *
     * @return the name, possibly with placeholders and templates
     */
    String name();

    /**
     * The rate, {@code PERMITS/PERIOD}: {@code "10/1s"}, {@code "100/1m"}, {@code "5/250ms"}; see
     * {@link io.coordis.ratelimit.RateLimit#parse}.
     *
     * @return the rate as text, possibly with placeholders
     */
    String limit();

    /**
     * How many permits an idle limiter grants at once; 0 (the default) for the permit count of {@link #limit()}.
     *
     * @return the burst, at least 1, or 0 for the default
     */
    int burst() default 0;

    /**
     * A SpEL expression over the arguments whose value picks a limiter of its own for each value
     * ({@code "#userId"}); empty (the default) for one limiter for every call.
     *
     * @return the key expression, or empty
     */
    String key() default "";

    /**
     * How long a call may wait for its permit: with {@link WhenBusy#WAIT}, empty (the default) waits as long as it
     * takes; otherwise empty decides at once, and a duration waits up to it before the call throws or skips.
     *
     * @return the wait, as a duration such as {@code 2s}; empty for the default
     */
    String maxWait() default "";

    /**
     * What to do when no permit is due; see the class comment.
     *
     * @return what to do when the limiter grants no permit
     */
    WhenBusy whenLimited() default WhenBusy.UNSTATED;
}
