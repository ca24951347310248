package io.coordis.testkit;

import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * ArchUnit rules for code built on Coordis (its own modules, and yours): it uses the library's exported API only,
 * and never the Redis client underneath. Take both into an {@code @AnalyzeClasses} test with
 * {@code @ArchTest static final ArchTests coordis = ArchTests.in(ApiBoundary.class);}, or one of them by its field.
 * Needs {@code com.tngtech.archunit:archunit-junit5} on the test class path (an optional dependency of the test
 * kit).
 */
public final class ApiBoundary {
    /** No use of {@code io.coordis.internal}, which {@code coordis-core}'s {@code module-info.java} does not export. */
    @ArchTest
    public static final ArchRule ONLY_THE_EXPORTED_API = noClasses().should().dependOnClassesThat()
            .resideInAPackage("io.coordis.internal..")
            .because("coordis-core's module-info.java does not export io.coordis.internal");

    /** No Lettuce, Netty or Reactor type: Coordis's API names none (bar the client builder's ClientResources). */
    @ArchTest
    public static final ArchRule NO_REDIS_CLIENT_TYPES = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("io.lettuce..", "io.netty..", "reactor..")
            .because("Redis access is coordis-core's business: its API names no Redis client type");

    private ApiBoundary() {
    }
}
