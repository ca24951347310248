package io.coordis.shedlock;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The ShedLock provider is a client of the library's exported API, as any program is. */
@AnalyzeClasses(packages = "io.coordis.shedlock", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule onlyTheExportedApi = noClasses().should().dependOnClassesThat()
            .resideInAPackage("io.coordis.internal..")
            .because("coordis-core's module-info.java does not export io.coordis.internal");
}
