package io.coordis.cli;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.coordis.testkit.ApiBoundary;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The CLI is a client of the library's exported API, as any program is; and its own packages depend one way: the
 * entry point on the commands, the commands on the run under a claim and the views, all of them on support.
 */
@AnalyzeClasses(packages = "io.coordis.cli", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule onlyTheExportedApi = ApiBoundary.ONLY_THE_EXPORTED_API;

    @ArchTest
    static final ArchRule noCyclesBetweenPackages = slices().matching("io.coordis.cli.(*)..")
            .should().beFreeOfCycles();

    @ArchTest
    static final ArchRule onlyTheEntryPointUsesTheTopPackage = noClasses()
            .that().resideOutsideOfPackage("io.coordis.cli")
            .should().dependOnClassesThat().resideInAPackage("io.coordis.cli");

    @ArchTest
    static final ArchRule supportUsesNoOtherCliPackage = noClasses()
            .that().resideInAPackage("io.coordis.cli.support..")
            .should().dependOnClassesThat().resideInAnyPackage("io.coordis.cli", "io.coordis.cli.command..",
                    "io.coordis.cli.queue..", "io.coordis.cli.dashboard..", "io.coordis.cli.demo..",
                    "io.coordis.cli.run..", "io.coordis.cli.view..");

    @ArchTest
    static final ArchRule commandGroupsAreIndependent = slices()
            .matching("io.coordis.cli.(command|queue|dashboard|demo)..")
            .should().notDependOnEachOther();

    @ArchTest
    static final ArchRule layers = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("Entry").definedBy("io.coordis.cli")
            .layer("Commands").definedBy("io.coordis.cli.command..", "io.coordis.cli.queue..",
                    "io.coordis.cli.dashboard..", "io.coordis.cli.demo..")
            .layer("Run").definedBy("io.coordis.cli.run..")
            .layer("View").definedBy("io.coordis.cli.view..")
            .layer("Support").definedBy("io.coordis.cli.support..")
            .whereLayer("Entry").mayNotBeAccessedByAnyLayer()
            .whereLayer("Commands").mayOnlyBeAccessedByLayers("Entry")
            .whereLayer("Run").mayOnlyBeAccessedByLayers("Commands")
            .whereLayer("View").mayOnlyBeAccessedByLayers("Commands")
            .whereLayer("Support").mayOnlyBeAccessedByLayers("Entry", "Commands", "Run", "View");
}
