package io.coordis.bench;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.coordis.testkit.ApiBoundary;

/** The benchmarks measure the library through its exported API, as a user would call it. */
@AnalyzeClasses(packages = "io.coordis.bench", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule onlyTheExportedApi = ApiBoundary.ONLY_THE_EXPORTED_API;
}
