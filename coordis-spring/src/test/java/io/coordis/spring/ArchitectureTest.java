package io.coordis.spring;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import io.coordis.testkit.ApiBoundary;

/** The Spring module is a client of the library's exported API, as any application is. */
@AnalyzeClasses(packages = "io.coordis.spring", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchTests coordis = ArchTests.in(ApiBoundary.class);
}
