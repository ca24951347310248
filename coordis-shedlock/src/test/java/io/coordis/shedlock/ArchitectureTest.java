package io.coordis.shedlock;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.coordis.testkit.ApiBoundary;

/** The ShedLock provider is a client of the library's exported API, as any program is. */
@AnalyzeClasses(packages = "io.coordis.shedlock", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule onlyTheExportedApi = ApiBoundary.ONLY_THE_EXPORTED_API;
}
