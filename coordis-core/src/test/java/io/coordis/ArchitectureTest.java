package io.coordis;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.name;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.members;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering of the library, from the bottom:
 * <ol>
 *   <li>the ground floor: {@code io.coordis}'s exceptions, {@code Ticker}, {@code Telemetry}, {@code Replication},
 *       {@code DurationText}, {@code Urls} and the values they name, which depend on nothing of the library;</li>
 *   <li>the base internal packages {@code io.coordis.internal}, {@code internal.redis} and {@code internal.lease}
 *       (Redis access, scripts, time, the lease session), which know the ground floor only;</li>
 *   <li>the API packages ({@code io.coordis.lock}, {@code queue}, {@code election}, {@code signal},
 *       {@code ratelimit}, {@code inspect}, {@code doctor}), which hold only what a user touches;</li>
 *   <li>the engines under {@code io.coordis.internal.<kind>}, which implement one kind's API;</li>
 *   <li>{@code io.coordis.Coordis}, its builder and its {@code Engines}, the only classes that build the engines'
 *       factories.</li>
 * </ol>
 * Lettuce stays inside {@code internal.redis}, no kind uses another (inspect and doctor read the primitives'
 * layouts), no package cycle, and the API names no internal type (what {@code module-info.java} exports must be
 * usable without what it does not). The one exception is Lettuce's {@code ClientResources}, which
 * {@code Coordis.Builder.clientResources} takes and hands to {@code internal.redis}.
 */
@AnalyzeClasses(packages = "io.coordis", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    /** The primitives, each an API package with its engine package under {@code io.coordis.internal}. */
    private static final List<String> PRIMITIVES = List.of("lock", "election", "signal", "queue", "latch", "ratelimit");
    /** Every kind: the primitives, and the two that read them. */
    private static final List<String> KINDS = List.of("lock", "election", "signal", "queue", "latch", "ratelimit",
            "inspect",
            "doctor");
    private static final String[] API = KINDS.stream().map(k -> "io.coordis." + k + "..").toArray(String[]::new);
    private static final String[] ENGINES =
            KINDS.stream().map(k -> "io.coordis.internal." + k + "..").toArray(String[]::new);
    private static final String[] BASE_INTERNAL = {"io.coordis.internal", "io.coordis.internal.redis..",
            "io.coordis.internal.lease.."};

    /** The client, above everything: its builder, the settings the builder keeps, and the engines it is made of. */
    private static final DescribedPredicate<JavaClass> CLIENT = new DescribedPredicate<>("the client and its builder") {
        @Override
        public boolean test(JavaClass c) {
            String n = c.getName();
            return n.equals(Coordis.class.getName()) || n.startsWith(Coordis.class.getName() + "$")
                    || n.equals(ClientSettings.class.getName()) || n.startsWith(ClientSettings.class.getName() + "$")
                    || n.equals(Engines.class.getName());
        }
    };

    /** {@code io.coordis} but the client: the exceptions, Ticker, Telemetry, Replication and their values. */
    private static final DescribedPredicate<JavaClass> GROUND_FLOOR =
            resideInAPackage("io.coordis").and(not(CLIENT)).as("the ground floor");

    /** The factories of the engines, which only the client builds. */
    private static final Set<String> FACTORIES = Set.of("io.coordis.internal.lock.Locks",
            "io.coordis.internal.election.Elections", "io.coordis.internal.queue.Queues",
            "io.coordis.internal.signal.PubSubSignals", "io.coordis.internal.inspect.ScanningInspector",
            "io.coordis.internal.doctor.ServerDoctor", "io.coordis.internal.latch.Latches",
            "io.coordis.internal.ratelimit.RateLimiters");

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
    static final ArchRule apiHoldsOnlyApi = classes()
            .that().resideInAnyPackage(API).and(topLevel()).and().doNotHaveSimpleName("package-info")
            .should(beApiTypes())
            .because("a newcomer opening an API package sees what a user touches, nothing else");

    /** A primitive's implementation under {@code internal} sees its own API package and no other primitive's. */
    @ArchTest
    static final ArchRule internalElectionBelowTheOtherPrimitives = noClasses()
            .that().resideInAPackage("io.coordis.internal.election..")
            .should().dependOnClassesThat().resideInAnyPackage(
                    "io.coordis.lock..", "io.coordis.signal..", "io.coordis.queue..", "io.coordis.inspect..",
                    "io.coordis.doctor..");

    /** Locks, elections and what they share talk to a node through {@code internal.redis.Node}, not its class. */
    @ArchTest
    static final ArchRule locksAndElectionsSeeANodeOnly = noClasses()
            .that().resideInAnyPackage("io.coordis.internal.lock..", "io.coordis.internal.election..",
                    "io.coordis.internal.lease..", "io.coordis.internal.contest..", "io.coordis.internal.latch..")
            .should().dependOnClassesThat().haveFullyQualifiedName("io.coordis.internal.redis.RedisNode")
            .because("a primitive needs a node's scripts, commands, channels and deadlines, not how it is opened, "
                    + "inspected or closed");

    @ArchTest
    static final ArchRule apiNeedsNoEngine = noClasses().that().resideInAnyPackage(API)
            .should().dependOnClassesThat().resideInAnyPackage(ENGINES)
            .because("the engines implement the API, not the other way round");

    @ArchTest
    static final ArchRule baseInternalBelowTheKinds = noClasses().that().resideInAnyPackage(BASE_INTERNAL)
            .should().dependOnClassesThat(resideInAnyPackage(API).or(resideInAnyPackage(ENGINES)).or(CLIENT))
            .because("Redis access, scripts, time and the lease session serve every kind and know none");

    @ArchTest
    static final ArchRule groundFloorDependsOnNothingAbove = noClasses().that(GROUND_FLOOR)
            .should().dependOnClassesThat(resideInAnyPackage(API).or(resideInAPackage("io.coordis.internal.."))
                    .or(CLIENT))
            .because("exceptions, Ticker, Telemetry and Replication are what every layer above names");

    @ArchTest
    static final ArchRule onlyTheClientBuildsTheEngines = classes().that(not(CLIENT))
            .should(notUseAFactoryOfAnotherPackage())
            .because("Coordis makes every primitive's factory");

    @ArchTest
    static final ArchRule noPackageCycles = slices().assignedFrom(layers()).should().beFreeOfCycles();

    @ArchTest
    static final ArchRule lockAlone = alone("lock");

    @ArchTest
    static final ArchRule electionAlone = alone("election");

    @ArchTest
    static final ArchRule signalAlone = alone("signal");

    @ArchTest
    static final ArchRule queueAlone = alone("queue");

    @ArchTest
    static final ArchRule latchAlone = alone("latch");

    static final ArchRule ratelimitAlone = alone("ratelimit");

    @ArchTest
    static final ArchRule apiNamesNoInternalType = members()
            .that().areDeclaredInClassesThat().resideOutsideOfPackage("io.coordis.internal..")
            .and().areDeclaredInClassesThat().arePublic()
            .and().haveModifier(JavaModifier.PUBLIC)
            .and().doNotHaveFullName(ClientSettings.class.getName() + ".clientResources(" + CLIENT_RESOURCES + ")")
            .and().doNotHaveFullName(Coordis.Builder.class.getName() + ".clientResources(" + CLIENT_RESOURCES + ")")
            .should(nameNoType("io.coordis.internal", "io.lettuce", "io.netty", "reactor."))
            .because("module-info.java exports these packages and not the ones holding those types");

    /**
     * No class of the primitive {@code kind} (its API package or its engines) depends on another primitive, nor on
     * inspect or doctor.
     */
    private static ArchRule alone(String kind) {
        List<String> others = new ArrayList<>();
        for (String k : KINDS) {
            if (!k.equals(kind)) {
                others.add("io.coordis." + k + "..");
                others.add("io.coordis.internal." + k + "..");
            }
        }
        return noClasses().that().resideInAnyPackage("io.coordis." + kind + "..", "io.coordis.internal." + kind + "..")
                .should().dependOnClassesThat().resideInAnyPackage(others.toArray(String[]::new));
    }

    private static DescribedPredicate<JavaClass> topLevel() {
        return new DescribedPredicate<>("are top-level classes") {
            @Override
            public boolean test(JavaClass c) {
                return c.isTopLevelClass();
            }
        };
    }

    /** Uses no factory outside its own package (a factory's engine may call back into it). */
    private static ArchCondition<JavaClass> notUseAFactoryOfAnotherPackage() {
        return new ArchCondition<>("use no engine factory of another package") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass();
                    String n = target.getName();
                    boolean factory = FACTORIES.stream().anyMatch(f -> n.equals(f) || n.startsWith(f + "$"));
                    if (factory && !target.getPackageName().equals(c.getPackageName())) {
                        events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                    }
                }
            }
        };
    }

    /**
     * Public interfaces, records, enums and exceptions, or final option and value classes (final, every instance
     * field final).
     */
    private static ArchCondition<JavaClass> beApiTypes() {
        return new ArchCondition<>("be public interfaces, records, enums, exceptions or final option/value classes") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                boolean ok = c.getModifiers().contains(JavaModifier.PUBLIC)
                        && (c.isInterface() || c.isRecord() || c.isEnum() || c.isAssignableTo(Throwable.class)
                        || c.getModifiers().contains(JavaModifier.FINAL) && c.getFields().stream()
                        .filter(f -> !f.getModifiers().contains(JavaModifier.STATIC))
                        .allMatch(ArchitectureTest::isFinal));
                if (!ok) {
                    events.add(SimpleConditionEvent.violated(c, c.getName() + " is machinery, not API: move it under "
                            + "io.coordis.internal"));
                }
            }
        };
    }

    private static boolean isFinal(JavaField f) {
        return f.getModifiers().contains(JavaModifier.FINAL);
    }

    /**
     * One slice per package, but {@code io.coordis} is two: the client (which builds everything) and the ground
     * floor (which everything names).
     */
    private static SliceAssignment layers() {
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                if (!c.getPackageName().startsWith("io.coordis") || c.getPackageName().startsWith("io.coordis.testkit")) {
                    return SliceIdentifier.ignore();
                }
                if (CLIENT.test(c)) {
                    return SliceIdentifier.of("client");
                }
                return SliceIdentifier.of(c.getPackageName());
            }

            @Override
            public String getDescription() {
                return "the library's packages, io.coordis split into the client and the ground floor";
            }
        };
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
