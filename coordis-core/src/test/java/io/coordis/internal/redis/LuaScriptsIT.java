package io.coordis.internal.redis;

import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code .lua} file of the library, found on disk rather than listed by hand: the SHA-1 the script runner
 * sends with {@code EVALSHA} is the one Redis computes on {@code SCRIPT LOAD}, and the file's header names every
 * {@code KEYS[n]} and {@code ARGV[n]} its body uses, and only those.
 *
 * <p>The header is the comment block the file starts with. It names an element as {@code KEYS[2]}; a run of
 * elements from one index on, which the body reaches with a computed index ({@code KEYS[i]}, {@code #KEYS}), as
 * {@code KEYS[3..]}; the whole array as a line of its own starting with {@code ARGV} (or, for none, {@code KEYS
 * none}).
 */
class LuaScriptsIT {
    private static final Path RESOURCES = Path.of("src", "main", "resources");
    private static final Pattern INDEXED = Pattern.compile("\\b(KEYS|ARGV)\\[(\\d+)(\\.\\.)?]");
    private static final Pattern COMPUTED = Pattern.compile("\\b(KEYS|ARGV)\\[[^\\d\\]]|#(KEYS|ARGV)\\b|unpack\\((KEYS|ARGV)\\b");
    private static final Pattern WHOLE = Pattern.compile("^--\\s+(KEYS|ARGV)\\s+(\\S.*)$");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    static Stream<String> scripts() throws IOException {
        try (Stream<Path> files = Files.walk(RESOURCES)) {
            return files.filter(p -> p.toString().endsWith(".lua"))
                    .map(p -> RESOURCES.relativize(p).toString().replace('\\', '/'))
                    .sorted()
                    .toList().stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scripts")
    void theRunnersShaIsTheOneRedisComputes(String resource) {
        LuaScript script = LuaScript.load(LuaScript.class, "/" + resource);
        assertThat(redis.server().command("SCRIPT", "LOAD", script.source())).isEqualTo(script.sha());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scripts")
    void theHeaderNamesEveryKeyAndArgumentTheBodyUses(String resource) throws IOException {
        assertThat(mismatches(Files.readString(RESOURCES.resolve(resource), StandardCharsets.UTF_8))).isEmpty();
    }

    @Test
    void theHeaderCheckCatchesWhatIsMissingOnEitherSide() {
        String named = "-- Does a thing.\n--\n-- KEYS[1]  the key\n-- ARGV[1]  a value\n";
        assertThat(mismatches(named + "return redis.call('SET', KEYS[1], ARGV[1])\n")).isEmpty();
        assertThat(mismatches(named + "return redis.call('SET', KEYS[1], ARGV[1], ARGV[2])\n"))
                .containsExactly("ARGV[2] is used but not named in the header");
        assertThat(mismatches(named + "return redis.call('GET', KEYS[1])\n"))
                .containsExactly("ARGV[1] is named in the header but not used");
        assertThat(mismatches(named + "for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end\nreturn ARGV[1]\n"))
                .containsExactly("KEYS[1] is named in the header but not used",
                        "KEYS is indexed by a computed index but the header names no KEYS[n..]");
        String range = "-- KEYS[1]  the queue\n-- KEYS[2..]  slots\n-- ARGV  the payloads\n";
        assertThat(mismatches(range + "for i = 2, #KEYS do redis.call('LPUSH', KEYS[i], unpack(ARGV)) end\n"
                + "return KEYS[1]\n")).isEmpty();
        assertThat(mismatches(range + "return redis.call('LLEN', KEYS[1])\n"))
                .containsExactly("KEYS[2..] is named in the header but not used with a computed index",
                        "ARGV is named in the header but not used with a computed index");
        assertThat(mismatches("-- KEYS     none\n-- ARGV[1]  a channel\nreturn redis.call('GET', KEYS[1], ARGV[1])\n"))
                .containsExactly("KEYS[1] is used but not named in the header");
    }

    /** Elements named from an index on ({@code KEYS[3..]}), or a whole array ({@code ARGV}, from 1). */
    private record Run(String array, int from, String label) {
        boolean covers(String element) {
            return element.startsWith(array + "[") && Integer.parseInt(element.replaceAll("\\D", "")) >= from;
        }
    }

    /** What the header of {@code source} and its body disagree on; empty when they agree. */
    static List<String> mismatches(String source) {
        List<String> lines = source.lines().toList();
        int split = 0;
        while (split < lines.size() && lines.get(split).startsWith("--")) {
            split++;
        }
        Set<String> named = new TreeSet<>();
        List<Run> runs = new ArrayList<>();
        for (String line : lines.subList(0, split)) {
            Matcher m = INDEXED.matcher(line);
            while (m.find()) {
                if (m.group(3) == null) {
                    named.add(m.group(1) + "[" + m.group(2) + "]");
                } else {
                    runs.add(new Run(m.group(1), Integer.parseInt(m.group(2)), m.group()));
                }
            }
            Matcher whole = WHOLE.matcher(line);
            if (whole.matches() && !whole.group(2).startsWith("none")) {
                runs.add(new Run(whole.group(1), 1, whole.group(1)));
            }
        }
        String body = String.join("\n", lines.subList(split, lines.size()));
        Set<String> used = new TreeSet<>();
        Matcher m = INDEXED.matcher(body);
        while (m.find()) {
            used.add(m.group(1) + "[" + m.group(2) + "]");
        }
        Set<String> computed = new TreeSet<>();
        Matcher c = COMPUTED.matcher(body);
        while (c.find()) {
            computed.add(c.group(1) != null ? c.group(1) : c.group(2) != null ? c.group(2) : c.group(3));
        }
        List<String> out = new ArrayList<>();
        for (String u : used) {
            if (!named.contains(u) && runs.stream().noneMatch(r -> r.covers(u))) {
                out.add(u + " is used but not named in the header");
            }
        }
        for (String n : named) {
            if (!used.contains(n)) {
                out.add(n + " is named in the header but not used");
            }
        }
        for (String array : computed) {
            if (runs.stream().noneMatch(r -> r.array().equals(array))) {
                out.add(array + " is indexed by a computed index but the header names no " + array + "[n..]");
            }
        }
        for (Run r : runs) {
            if (!computed.contains(r.array())) {
                out.add(r.label() + " is named in the header but not used with a computed index");
            }
        }
        return out;
    }
}
