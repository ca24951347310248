package io.coordis.spring.boot.autoconfigure;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import io.coordis.testkit.ApiBoundary;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The auto-configuration is a client of the library's exported API, as any application is. */
@AnalyzeClasses(packages = "io.coordis.spring.boot.autoconfigure", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchTests coordis = ArchTests.in(ApiBoundary.class);

    @ArchTest
    static final ArchRule runnerOnlyForTheDevelopmentServer = noClasses()
            .that().doNotHaveSimpleName("EmbeddedRedis").and().doNotHaveSimpleName("CoordisAutoConfiguration")
            .and().doNotHaveSimpleName("Embedded")
            .should().dependOnClassesThat().resideInAPackage("io.coordis.redis.runner..")
            .because("coordis-redis-runner is optional: only coordis.embedded=true may load it");

    @ArchTest
    static final ArchRule noTestKit = noClasses()
            .should().dependOnClassesThat().resideInAPackage("io.coordis.testkit..")
            .because("coordis-testkit is for tests; the development server comes from coordis-redis-runner");
}
