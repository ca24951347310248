package io.coordis.example;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The executable jar that {@code mvn package} makes is the production application: Coordis and Spring Boot, but
 * neither the development redis-server of the "dev" profile (coordis-redis-runner, embedded-redis's binaries) nor
 * anything of the tests (JUnit, the test kit).
 */
class ExecutableJarIT {
    private static final Path JAR = Path.of("target", "coordis-example-spring-boot.jar");

    @Test
    void holdsTheApplicationAndNoDevelopmentOrTestLibrary() throws IOException {
        assertThat(JAR).as("the repackaged jar of the package phase").isRegularFile();
        List<String> libraries;
        try (JarFile jar = new JarFile(JAR.toFile())) {
            assertThat(jar.getEntry("BOOT-INF/classes/io/coordis/example/ExampleApplication.class")).isNotNull();
            libraries = jar.stream().map(ZipEntry::getName).filter(n -> n.startsWith("BOOT-INF/lib/"))
                    .map(n -> n.substring("BOOT-INF/lib/".length())).toList();
        }
        assertThat(libraries).anyMatch(n -> n.startsWith("coordis-core-"))
                .anyMatch(n -> n.startsWith("coordis-spring-boot-autoconfigure-"))
                .noneMatch(n -> n.startsWith("coordis-redis-runner-"))
                .noneMatch(n -> n.startsWith("embedded-redis-"))
                .noneMatch(n -> n.startsWith("coordis-testkit-"))
                .noneMatch(n -> n.startsWith("junit-"));
    }
}
