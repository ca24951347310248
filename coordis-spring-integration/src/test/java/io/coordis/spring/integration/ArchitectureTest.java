package io.coordis.spring.integration;

import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import org.springframework.integration.support.locks.DistributedLock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The module is a client of the library's exported API, as any program is; its implementations stay hidden. */
@AnalyzeClasses(packages = "io.coordis.spring.integration", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule onlyTheExportedApi = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("io.coordis.internal..", "io.lettuce..", "io.netty..")
            .because("coordis-core's module-info.java does not export io.coordis.internal, and Redis access is "
                    + "core's business");

    @ArchTest
    static final ArchRule implementationsArePackagePrivate = classes().that().implement(DistributedLock.class)
            .should().notBePublic().andShould().haveModifier(JavaModifier.FINAL)
            .because("users obtain locks from the registry; the lock's class is how it works, not API");
}
