package io.coordis.spring;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The Spring module is a client of the library's exported API, as any application is. */
@AnalyzeClasses(packages = "io.coordis.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule onlyTheExportedApi = noClasses().should().dependOnClassesThat()
            .resideInAPackage("io.coordis.internal..")
            .because("coordis-core's module-info.java does not export io.coordis.internal");

    @ArchTest
    static final ArchRule noRedisClientTypes = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("io.lettuce..", "io.netty..", "reactor..")
            .because("the annotations work through Coordis's API, which names no Redis client type");
}
