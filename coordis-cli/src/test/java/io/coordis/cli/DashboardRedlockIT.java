package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static io.coordis.cli.TestJson.list;
import static io.coordis.cli.TestJson.map;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code coordis dashboard} over three Redlock masters: each lock's nodes, as {@code inspect} reads them, in the JSON
 * view and as one square per node on the page, and a node that holds another value shows as differing.
 */
class DashboardRedlockIT {
    @RegisterExtension
    static final RedisExtension redis = RedisExtension.masters(3);

    @Test
    void eachRedlockNodesPartIsShown() throws Exception {
        LockOptions options = LockOptions.defaults().withTtl(Duration.ofSeconds(30)).withHolderId("carol@batch7:99")
                .withRestartGuard(false);
        List<String> args = new ArrayList<>(List.of("dashboard", "--listen", "127.0.0.1:0", "--refresh", "200ms"));
        for (String uri : redis.uris()) {
            args.add("-u");
            args.add(uri);
        }
        String name = Prefixed.key("rl:dash");
        WebDriver browser = null;
        try (Coordis coordis = TestClients.builder().urls(redis.uris()).connect();
             Lease lease = coordis.lock("rl:dash", options).tryAcquire().orElseThrow();
             CliProcess dashboard = CliProcess.start(args.toArray(String[]::new))) {
            RedisServer odd = redis.servers().get(2);
            assertThat(odd.command("SET", name, "intruder", "XX", "PX", "30000")).isEqualTo("OK");
            dashboard.awaitStdout("coordis dashboard: http://127.0.0.1:");
            String line = dashboard.stdout().lines().filter(l -> l.startsWith("coordis dashboard: ")).findFirst()
                    .orElseThrow();
            URI page = URI.create(line.substring("coordis dashboard: ".length()).strip());

            HttpClient http = HttpClient.newHttpClient();
            Map<String, Object> nodes = Map.of();
            for (long deadline = System.nanoTime() + 10_000_000_000L; nodes.isEmpty() && System.nanoTime() < deadline; ) {
                CliProcess.sleep(100);
                String body = http.send(HttpRequest.newBuilder(page.resolve("/api/state")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                nodes = map(TestJson.object(body).get("redlockNodes"));
            }
            List<Object> parts = list(nodes.get(name));
            assertThat(parts).hasSize(3);
            assertThat(map(parts.get(0))).containsEntry("held", true).containsEntry("agrees", true)
                    .doesNotContainKey("token");
            assertThat(map(parts.get(2))).containsEntry("held", true).containsEntry("agrees", false)
                    .containsEntry("node", odd.host() + ":" + odd.port()).doesNotContainKey("token");

            browser = Chromium.open(page.toString());
            By row = By.cssSelector("tr[data-kind='lock'][data-name='" + name + "']");
            // the page re-renders the table on each poll: the squares and the text are read from one rendering,
            // and a row replaced while being read is read again
            Map.Entry<List<String>, String> shown = new WebDriverWait(browser, Duration.ofSeconds(10), Duration.ofMillis(20))
                    .ignoring(StaleElementReferenceException.class)
                    .until(d -> d.findElements(row).stream().findFirst().map(r -> {
                        List<String> classes = r.findElements(By.cssSelector("span.node")).stream()
                                .map(s -> s.getAttribute("class")).toList();
                        return classes.size() == 3 ? Map.entry(classes, r.getText()) : null;
                    }).orElse(null));
            assertThat(shown.getKey()).containsExactly("node agrees", "node agrees", "node differs");
            assertThat(shown.getValue()).contains("redlock 2/3", "carol@batch7:99");
            dashboard.interrupt();
            assertThat(dashboard.exitCode()).isZero();
        } finally {
            if (browser != null) {
                browser.quit();
            }
        }
    }
}
