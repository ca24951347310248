package io.coordis;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's Java examples compile against the library as it is: every {@code ```java} block of README.md
 * becomes the body of one method of a generated class, with the few names the examples take as given
 * ({@code coordis}, {@code storage}, {@code order}, {@code log}, {@code startJob}, …) declared around them, and
 * the class is compiled with the test class path. An example that no longer matches the API fails the build.
 *
 * <p>Examples that need more than the core library (a Spring application, say) are fenced
 * {@code ```java excerpt=PATH}: their lines must stand, in order and whole, in that source file of the repository,
 * which the build compiles in its own module; so they cannot rot either.
 */
class ReadmeExamplesTest {
    /** The README has fifteen examples; fewer found means the extraction broke, not that they all compile. */
    private static final int EXAMPLES = 15;

    private static final String HEADER = """
            package readme;

            import io.coordis.*;
            import io.coordis.election.*;
            import io.coordis.inspect.*;
            import io.coordis.lock.*;
            import io.coordis.queue.*;
            import io.coordis.signal.*;
            import java.nio.file.Path;
            import java.time.Duration;
            import java.util.List;
            import java.util.Optional;

            /** Generated from README.md by ReadmeExamplesTest. */
            abstract class Examples {
                interface Log {
                    void warn(String message);
                }

                interface Storage {
                    void write(Object order, long fencingToken);
                }

                Coordis coordis;
                Log log;
                Storage storage;
                Object order;

                abstract void startJob(int id);

                abstract void runOneJob(long term);

                abstract void runAllJobs(long term) throws InterruptedException;

                abstract boolean handle(byte[] payload);
            """;

    @Test
    void everyJavaExampleOfTheReadmeCompiles(@TempDir Path dir) throws IOException {
        List<String> examples = javaBlocks(Files.readString(readme(), StandardCharsets.UTF_8));
        assertThat(examples).as("java blocks in README.md").hasSize(EXAMPLES);

        StringBuilder source = new StringBuilder(HEADER);
        for (int i = 0; i < examples.size(); i++) {
            source.append("\n    void example").append(i + 1).append("() throws Exception {\n")
                    .append(examples.get(i).indent(8)).append("    }\n");
        }
        source.append("}\n");
        Path file = Files.createDirectories(dir.resolve("readme")).resolve("Examples.java");
        Files.writeString(file, source, StandardCharsets.UTF_8);

        List<String> errors = compile(file, dir.resolve("classes"));
        assertThat(errors).as("README examples that do not compile (generated source: %s)", file).isEmpty();
    }

    @Test
    void everyExcerptStandsInItsCompiledSource() throws IOException {
        Path readme = readme();
        List<String[]> excerpts = excerptBlocks(Files.readString(readme, StandardCharsets.UTF_8));
        List<String> missing = new ArrayList<>();
        for (String[] excerpt : excerpts) {
            Path source = readme.getParent().resolve(excerpt[0]);
            if (!excerpt[0].endsWith(".java") || !Files.isRegularFile(source)) {
                missing.add(excerpt[0] + ": no such Java source in the repository");
            } else if (!normalized(Files.readString(source, StandardCharsets.UTF_8))
                    .contains(normalized(excerpt[1]))) {
                missing.add(excerpt[0] + ": does not contain the README's block starting "
                        + excerpt[1].strip().lines().findFirst().orElse(""));
            }
        }
        assertThat(missing).as("README excerpts out of step with their sources").isEmpty();
    }

    @Test
    void excerptsAreComparedLineByLineWithoutIndentation() {
        String md = """
                ```java excerpt=a/B.java
                    @Bean
                    Coordis c() {}
                ```
                """;
        List<String[]> blocks = excerptBlocks(md);
        assertThat(blocks).hasSize(1);
        assertThat(blocks.get(0)[0]).isEqualTo("a/B.java");
        assertThat(normalized("class B {\n  @Bean\n  Coordis c() {}\n}\n")).contains(normalized(blocks.get(0)[1]));
        assertThat(normalized("class B {\n  @Bean\n  Coordis d() {}\n}\n")).doesNotContain(normalized(blocks.get(0)[1]));
    }

    @Test
    void theExtractionFindsEachBlockWhole() {
        String md = """
                text
                ```java
                int a = 1;
                ```
                ```sh
                echo no
                ```
                ```java
                  int b = 2;
                int c = 3;
                ```
                """;
        assertThat(javaBlocks(md)).containsExactly("int a = 1;\n", "  int b = 2;\nint c = 3;\n");
    }

    /** The bodies of the {@code ```java} fenced blocks, in order. */
    static List<String> javaBlocks(String markdown) {
        List<String> blocks = new ArrayList<>();
        StringBuilder current = null;
        for (String line : markdown.split("\n", -1)) {
            if (current == null) {
                if (line.strip().equals("```java")) {
                    current = new StringBuilder();
                }
            } else if (line.strip().equals("```")) {
                blocks.add(current.toString());
                current = null;
            } else {
                current.append(line).append('\n');
            }
        }
        return blocks;
    }

    /** The {@code ```java excerpt=PATH} blocks: each as its path and its body. */
    static List<String[]> excerptBlocks(String markdown) {
        List<String[]> blocks = new ArrayList<>();
        String path = null;
        StringBuilder current = null;
        for (String line : markdown.split("\n", -1)) {
            String stripped = line.strip();
            if (current == null) {
                if (stripped.startsWith("```java excerpt=")) {
                    path = stripped.substring("```java excerpt=".length()).strip();
                    current = new StringBuilder();
                }
            } else if (stripped.equals("```")) {
                blocks.add(new String[] {path, current.toString()});
                current = null;
            } else {
                current.append(line).append('\n');
            }
        }
        return blocks;
    }

    /** Each line stripped of its indentation and trailing blanks, blank lines dropped, joined with newlines. */
    private static String normalized(String text) {
        StringBuilder out = new StringBuilder("\n");
        text.lines().map(String::strip).filter(l -> !l.isEmpty()).forEach(l -> out.append(l).append('\n'));
        return out.toString();
    }

    /** The README at the repository root (tests run in the module's directory). */
    private static Path readme() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("README.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("README.md above %s", Path.of("").toAbsolutePath()).isNotNull();
        return dir.resolve("README.md");
    }

    /** Compiles {@code file} against this JVM's class path; the errors, each with its line. */
    private static List<String> compile(Path file, Path out) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        assertThat(compiler).as("a JDK's compiler").isNotNull();
        Files.createDirectories(out);
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
            List<String> options = List.of("-classpath", classPath, "-d", out.toString(),
                    "-proc:none");
            compiler.getTask(null, files, diagnostics, options, null, files.getJavaFileObjects(file)).call();
        }
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                errors.add("line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT));
            }
        }
        return errors;
    }
}
