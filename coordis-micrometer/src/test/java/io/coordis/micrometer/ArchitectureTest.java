package io.coordis.micrometer;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The metrics are a client of the library's exported API, as any program is, and never see Lettuce. */
@AnalyzeClasses(packages = "io.coordis.micrometer", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule onlyTheExportedApi = noClasses().should().dependOnClassesThat()
            .resideInAPackage("io.coordis.internal..")
            .because("coordis-core's module-info.java does not export io.coordis.internal");

    @ArchTest
    static final ArchRule noLettuce = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("io.lettuce..", "io.netty..")
            .because("the client's Telemetry is the whole interface; Lettuce's own metrics come through its "
                    + "ClientResources, which the application builds");
}
