package io.coordis.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated bean method while holding the Coordis lock {@link #name()}, renewed while the method runs
 * (every third of {@link #ttl()}), released when it returns or throws. Inside the method,
 * {@link CoordisContext#fencingToken()} answers the acquisition's fencing number: pass it to what the method
 * writes, so that a resource can refuse a holder that lost the lock without knowing it.
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 10_000)
 * @Locked(name = "reports:nightly", ttl = "30s")       // another instance holds it: this run is skipped
 * void nightlyReport() { ... }
 *
 * @Locked(name = "order:#{#orderId}", whenBusy = WhenBusy.WAIT, maxWait = "5s")
 * Receipt settle(String orderId) { ... }
 * }</pre>
 *
 * <p><b>Busy.</b> {@link #whenBusy()} says what happens when another holder (in any process) has the lock:
 * {@link WhenBusy#SKIP} returns without running the method ({@code null}, or {@code Optional.empty()} for a
 * method returning {@code Optional}), {@link WhenBusy#WAIT} waits for it. Void methods skip unless told
 * otherwise, as a {@code @Scheduled} job should; a method that returns a value must choose, or the context
 * does not start.
 *
 * <p><b>Loss.</b> If the lock is lost while the method runs (renewal failed, or an operator forced it open),
 * the thread running the method is interrupted, and once the method has returned or thrown, the call throws
 * an {@link io.coordis.CoordisException} saying the lock was lost (with what the method threw suppressed):
 * a result computed without the lock never passes for one computed with it.
 *
 * <p><b>Options.</b> The lock starts from the application's {@code LockOptions} bean when it has one (the Spring Boot
 * starter makes it from {@code coordis.lock.*}: with {@code coordis.lock.fair=true} every {@code @Locked} lock is
 * fair), else from {@code LockOptions.defaults()}; {@link #ttl()} overrides its TTL.
 *
 * <p>Attributes accept {@code ${...}} placeholders; the name may also hold SpEL templates over the method's
 * arguments, {@code #{#orderId}} or {@code #{#p0}} (parameter names need {@code -parameters}, which Spring
 * Boot's build sets; {@code #p0}, {@code #p1} always work). The client's key prefix goes before the name.
 * The bean must be called through its Spring proxy (a call from inside the same object is not locked). The lock
 * encloses other advice on the method, such as {@code @Transactional}: a transaction commits before the lock is
 * released.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {
    /**
     * The lock's name: literal text, {@code ${...}} placeholders and {@code #{...}} SpEL templates.
     *
     * @return the name, possibly with placeholders and templates
     */
    String name();

    /**
     * How long the lock lives in Redis without renewal (a crashed holder blocks others this long); default: the TTL
     * of the application's {@code LockOptions} bean ({@code coordis.lock.ttl} with the starter), else 30s.
     *
     * @return the TTL, as a duration such as {@code 30s}; empty for the default
     */
    String ttl() default "";

    /**
     * How long to wait for a busy lock: with {@link WhenBusy#WAIT}, empty (the default) waits as long as it
     * takes, and a wait that runs out throws {@link LockBusyException}; with {@link WhenBusy#SKIP}, the method is
     * skipped when the lock is still busy after this wait (default: not at all).
     *
     * @return the wait, as a duration such as {@code 5s}; empty for the default
     */
    String maxWait() default "";

    /**
     * What to do when the lock is busy; see the class comment.
     *
     * @return what to do when the lock is busy
     */
    WhenBusy whenBusy() default WhenBusy.UNSTATED;
}
