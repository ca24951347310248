package io.coordis.micrometer;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import io.coordis.testkit.ApiBoundary;

/** The metrics are a client of the library's exported API, as any program is, and never see Lettuce. */
@AnalyzeClasses(packages = "io.coordis.micrometer", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchTests coordis = ArchTests.in(ApiBoundary.class);
}
