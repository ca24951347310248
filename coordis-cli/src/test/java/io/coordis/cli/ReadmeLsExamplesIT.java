package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.ratelimit.RateLimit;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs every command of the README's {@code ls} / {@code inspect} section against a real redis-server. */
class ReadmeLsExamplesIT {
    private static final String PREFIX = "java -jar coordis-cli/target/coordis.jar ";

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    static List<List<String>> examples() throws IOException {
        List<String> readme = Files.readAllLines(Path.of("..", "README.md"));
        int start = readme.indexOf("## Seeing what is there: `ls` and `inspect`");
        assertThat(start).as("README section").isNotNegative();
        List<List<String>> commands = new ArrayList<>();
        for (int i = start + 1; i < readme.size() && !readme.get(i).startsWith("## "); i++) {
            String line = readme.get(i);
            if (line.startsWith(PREFIX)) {
                commands.add(words(line.substring(PREFIX.length())));
            }
        }
        return commands;
    }

    /** Shell words: blanks separate, single quotes group, an unquoted {@code #} starts a comment. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = null;
        boolean quoted = false;
        for (char c : line.toCharArray()) {
            if (quoted) {
                if (c == '\'') {
                    quoted = false;
                } else {
                    word.append(c);
                }
            } else if (c == '\'') {
                quoted = true;
                word = word == null ? new StringBuilder() : word;
            } else if (c == '#' && word == null) {
                break;
            } else if (Character.isWhitespace(c)) {
                if (word != null) {
                    words.add(word.toString());
                    word = null;
                }
            } else {
                word = word == null ? new StringBuilder() : word;
                word.append(c);
            }
        }
        if (word != null) {
            words.add(word.toString());
        }
        return words;
    }

    @Test
    void everyExampleRuns() throws Exception {
        List<List<String>> examples = examples();
        assertThat(examples).hasSizeGreaterThanOrEqualTo(6);
        try (Coordis coordis = TestClients.connect(redis.uri());
             Lease lease = coordis.lock("orders:42").tryAcquire().orElseThrow()) {
            coordis.reliableQueue("jobs").push("job-1");
            coordis.countDownLatch("batch:42", 3, Duration.ofMinutes(5)).countDown();
            coordis.rateLimiter("api:search", RateLimit.parse("10/1m")).tryAcquire();
            InProcess cli = new InProcess();
            for (List<String> example : examples) {
                List<String> args = new ArrayList<>(example);
                args.addAll(List.of("-u", redis.uri()));
                if (example.contains("--watch")) {
                    try (CliProcess watch = CliProcess.start(args.toArray(String[]::new))) {
                        watch.awaitStdout(Prefixed.key("orders:42"));
                        watch.interrupt();
                        assertThat(watch.exitCode()).as("%s", example).isEqualTo(130);
                    }
                    continue;
                }
                assertThat(cli.run(args.toArray(String[]::new))).as("%s: %s", example, cli.err()).isZero();
                assertThat(cli.out()).as("%s", example).isNotBlank();
                if (example.contains("json")) {
                    cli.out().lines().forEach(TestJson::object);
                }
                if (example.contains("locks") || example.contains("lock")) {
                    assertThat(cli.out()).as("%s", example).contains(Prefixed.key("orders:42"));
                }
            }
            assertThat(lease.isHeld()).isTrue();
        }
    }
}
