package io.coordis.spring.boot.autoconfigure;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The auto-configuration is a client of the library's exported API, as any application is. */
@AnalyzeClasses(packages = "io.coordis.spring.boot.autoconfigure", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule onlyTheExportedApi = noClasses().should().dependOnClassesThat()
            .resideInAPackage("io.coordis.internal..")
            .because("coordis-core's module-info.java does not export io.coordis.internal");

    @ArchTest
    static final ArchRule noLettuce = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("io.lettuce..", "io.netty..")
            .because("the client's Redis connection is coordis-core's business");

    @ArchTest
    static final ArchRule testKitOnlyForTheDevelopmentServer = noClasses()
            .that().doNotHaveSimpleName("EmbeddedRedis").and().doNotHaveSimpleName("CoordisAutoConfiguration")
            .and().doNotHaveSimpleName("Embedded")
            .should().dependOnClassesThat().resideInAPackage("io.coordis.testkit..")
            .because("coordis-testkit is optional: only coordis.embedded=true may load it");
}
