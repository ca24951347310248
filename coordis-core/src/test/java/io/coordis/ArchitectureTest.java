package io.coordis;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import java.util.HashSet;
import java.util.Set;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The layering of the library: primitives above {@code io.coordis.internal}, Lettuce inside
 * {@code internal.redis}, no primitive package using another, and an API that names no internal type (what
 * {@code module-info.java} exports must be usable without what it does not). The one exception is Lettuce's
 * {@code ClientResources}, which {@code Coordis.Builder.clientResources} takes and hands to {@code internal.redis}.
 */
@AnalyzeClasses(packages = "io.coordis", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    private static final String[] PRIMITIVES = {"io.coordis.lock..", "io.coordis.election..", "io.coordis.signal..",
            "io.coordis.queue.."};

    /** The one Lettuce type in the API: the builder takes the application's Lettuce resources (for their metrics). */
    private static final String CLIENT_RESOURCES = "io.lettuce.core.resource.ClientResources";

    @ArchTest
    static final ArchRule lettuceOnlyInTheRedisLayer = noClasses()
            .that().resideOutsideOfPackage("io.coordis.internal.redis..")
            .should().dependOnClassesThat(resideInAPackage("io.lettuce..")
                    .and(not(name(CLIENT_RESOURCES))))
            .because("the primitives never see Lettuce types");

    @ArchTest
    static final ArchRule clientResourcesOnlyOnTheBuilder = noClasses()
            .that().resideOutsideOfPackage("io.coordis.internal.redis..")
            .and().doNotHaveFullyQualifiedName(ClientSettings.class.getName())
            .and().doNotHaveFullyQualifiedName(Coordis.class.getName())
            .and().doNotHaveFullyQualifiedName(Coordis.Builder.class.getName())
            .should().dependOnClassesThat().haveFullyQualifiedName(CLIENT_RESOURCES)
            .because("Lettuce's ClientResources enter through Coordis.Builder.clientResources and go straight to "
                    + "internal.redis");

    @ArchTest
    static final ArchRule nettyOnlyInternal = noClasses().that().resideOutsideOfPackage("io.coordis.internal..")
            .should().dependOnClassesThat().resideInAPackage("io.netty..");

    @ArchTest
    static final ArchRule internalBelowThePrimitives = noClasses().that().resideInAPackage("io.coordis.internal..")
            .and().resideOutsideOfPackage("io.coordis.internal.election..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.coordis.lock..", "io.coordis.election..", "io.coordis.signal..", "io.coordis.queue..",
                    "io.coordis.inspect..", "io.coordis.doctor..");

    /** A primitive's implementation under {@code internal} sees its own API package and no other primitive's. */
    @ArchTest
    static final ArchRule internalElectionBelowTheOtherPrimitives = noClasses()
            .that().resideInAPackage("io.coordis.internal.election..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.coordis.lock..", "io.coordis.signal..", "io.coordis.queue..", "io.coordis.inspect..",
                    "io.coordis.doctor..");

    @ArchTest
    static final ArchRule lockAlone = alone("io.coordis.lock..");

    @ArchTest
    static final ArchRule electionAlone = alone("io.coordis.election..");

    @ArchTest
    static final ArchRule signalAlone = alone("io.coordis.signal..");

    @ArchTest
    static final ArchRule queueAlone = alone("io.coordis.queue..");

    @ArchTest
    static final ArchRule apiNamesNoInternalType = members()
            .that().areDeclaredInClassesThat().resideOutsideOfPackage("io.coordis.internal..")
            .and().areDeclaredInClassesThat().arePublic()
            .and().haveModifier(JavaModifier.PUBLIC)
            .and().doNotHaveFullName(ClientSettings.class.getName() + ".clientResources(" + CLIENT_RESOURCES + ")")
            .and().doNotHaveFullName(Coordis.Builder.class.getName() + ".clientResources(" + CLIENT_RESOURCES + ")")
            .should(nameNoType("io.coordis.internal", "io.lettuce", "io.netty", "reactor."))
            .because("module-info.java exports these packages and not the ones holding those types");

    /** No class of {@code primitive} depends on another primitive package, nor on inspect or doctor. */
    private static ArchRule alone(String primitive) {
        Set<String> others = new HashSet<>(Set.of(PRIMITIVES));
        others.remove(primitive);
        others.add("io.coordis.inspect..");
        others.add("io.coordis.doctor..");
        return noClasses().that().resideInAPackage(primitive)
                .should().dependOnClassesThat().resideInAnyPackage(others.toArray(String[]::new));
    }

    private static ArchCondition<JavaMember> nameNoType(String... packagePrefixes) {
        return new ArchCondition<>("name no type of " + String.join(", ", packagePrefixes)) {
            @Override
            public void check(JavaMember member, ConditionEvents events) {
                for (JavaClass type : member.getAllInvolvedRawTypes()) {
                    for (String prefix : packagePrefixes) {
                        if (type.getName().startsWith(prefix)) {
                            events.add(SimpleConditionEvent.violated(member,
                                    member.getFullName() + " names " + type.getName()));
                        }
                    }
                }
            }
        };
    }
}
