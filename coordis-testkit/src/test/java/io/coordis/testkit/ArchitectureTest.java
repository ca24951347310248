package io.coordis.testkit;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The test kit stands alone: users' tests take it without the library, and the library's tests take it. Below it
 * lies only the Redis runner, which starts its processes.
 */
@AnalyzeClasses(packages = "io.coordis.testkit", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule independentOfTheLibrary = noClasses().should().dependOnClassesThat(
                    resideInAPackage("io.coordis..").and(resideOutsideOfPackage("io.coordis.testkit.."))
                            .and(resideOutsideOfPackage("io.coordis.redis.runner..")))
            .because("coordis-core depends on the test kit for its tests, never the other way");
}
