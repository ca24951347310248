package io.coordis.spring.integration;

import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import io.coordis.testkit.ApiBoundary;
import org.springframework.integration.support.locks.DistributedLock;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;

/** The module is a client of the library's exported API, as any program is; its implementations stay hidden. */
@AnalyzeClasses(packages = "io.coordis.spring.integration", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchTests coordis = ArchTests.in(ApiBoundary.class);

    @ArchTest
    static final ArchRule implementationsArePackagePrivate = classes().that().implement(DistributedLock.class)
            .should().notBePublic().andShould().haveModifier(JavaModifier.FINAL)
            .because("users obtain locks from the registry; the lock's class is how it works, not API");
}
