package io.coordis.cli;

import io.coordis.Coordis;
import io.coordis.election.LeaderElection;
import io.coordis.election.Leadership;
import io.coordis.inspect.LockState;
import io.coordis.lock.Lease;
import io.coordis.lock.LockOptions;
import io.coordis.lock.Permit;
import io.coordis.lock.Semaphore;
import io.coordis.queue.Consumer;
import io.coordis.ratelimit.RateLimit;
import io.coordis.ratelimit.RateLimiter;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RedisExtension;
import io.coordis.testkit.RespClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoAlertPresentException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static io.coordis.cli.TestJson.list;
import static io.coordis.cli.TestJson.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code coordis dashboard} as a user runs it (a JVM of its own, stopped with Ctrl-C), read by headless Chromium
 * through Selenium and by plain HTTP: objects made by other processes appear and go, the queue chart moves, hostile
 * names stay text, the JSON view is what {@code ls -o json} prints, and the server is read-only and locked down. One
 * dashboard and one browser for the class; the page refreshes every {@value #REFRESH_MS} ms.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardIT {
    private static final long REFRESH_MS = 200;
    /** Written by the test that fills the page; README.md shows a copy (docs/dashboard.png). */
    static final Path SCREENSHOT = Path.of("target", "dashboard.png");

    @RegisterExtension
    static final RedisExtension redis = RedisExtension.standalone();

    private static CliProcess dashboard;
    private static URI page;
    private static WebDriver browser;
    private static Coordis coordis;
    private static RespClient raw;
    private static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void startDashboard() {
        dashboard = CliProcess.start("dashboard", "-u", redis.uri(), "--listen", "127.0.0.1:0", "--refresh",
                REFRESH_MS + "ms");
        dashboard.awaitStdout("coordis dashboard: http://127.0.0.1:");
        String line = dashboard.stdout().lines().filter(l -> l.startsWith("coordis dashboard: ")).findFirst().orElseThrow();
        page = URI.create(line.substring("coordis dashboard: ".length()).strip());
        coordis = TestClients.connect(redis.uri());
        raw = RespClient.connect(redis.server());
    }

    @AfterAll
    static void stop() throws IOException {
        if (browser != null) {
            browser.quit();
        }
        if (raw != null) {
            raw.close();
        }
        if (coordis != null) {
            coordis.close();
        }
        if (dashboard != null) {
            dashboard.close();
        }
    }

    /** The browser, started on first use. */
    private static WebDriver browser() throws IOException {
        if (browser == null) {
            browser = Chromium.open(page.toString());
        }
        return browser;
    }

    private static WebDriverWait within(Duration timeout) throws IOException {
        WebDriverWait wait = new WebDriverWait(browser(), timeout, Duration.ofMillis(20));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    private static By row(String kind, String name) {
        return By.cssSelector("tr[data-kind='" + kind + "'][data-name='" + name.replace("\\", "\\\\").replace("'", "\\'")
                + "']");
    }

    /** Clicks what {@code by} finds; the rows are drawn anew at every refresh, so a click may need a second try. */
    private static void click(By by) throws IOException {
        within(Duration.ofSeconds(5)).until(d -> {
            d.findElement(by).click();
            return true;
        });
    }

    @Test
    @Order(1)
    void aLockTakenByAnotherProcessAppearsWithHolderAndFenceAndGoesAfterItsRelease() throws Exception {
        WebDriver b = browser();
        Path go = CliProcess.signalFile();
        String name = Prefixed.key("dash:report");
        try (CliProcess holder = CliProcess.start("lock", "-u", redis.uri(), "dash:report", "--", "sh", "-c",
                "echo running; while [ ! -e \"$0\" ]; do sleep 0.05; done", go.toString())) {
            holder.awaitStdout("running");
            LockState held = coordis.inspector().lock(name).orElseThrow();
            long seen = System.nanoTime();
            // two refreshes of the sampler, one of the page, and slack for a machine shared by several builds
            List<String> cells = within(Duration.ofMillis(2 * REFRESH_MS + 2_000)).until(d -> d.findElements(row("lock", name))
                    .stream().findFirst().map(r -> List.of(r.findElement(By.cssSelector("td.holder")).getText(),
                            r.findElement(By.cssSelector("td.fence")).getText(), r.getText())).orElse(null));
            long tookMs = (System.nanoTime() - seen) / 1_000_000;
            assertThat(cells.get(0)).isEqualTo(held.holderId().orElseThrow());
            assertThat(cells.get(1)).isEqualTo(Long.toString(held.fencingToken().orElseThrow()));
            assertThat(cells.get(2)).contains(Long.toString(holder.pid()));
            System.out.println("the lock appeared on the page " + tookMs + " ms after it was taken");

            Files.createFile(go);
            assertThat(holder.exitCode()).isZero();
            within(Duration.ofMillis(2 * REFRESH_MS + 2_000)).until(d -> d.findElements(row("lock", name)).isEmpty());
        }
        assertThat(b.findElements(By.cssSelector("#locks tbody tr.empty"))).hasSize(1);
    }

    @Test
    @Order(2)
    void aQueuesDepthChartChangesAfterPushesAndItsThroughputChartAfterAcks() throws Exception {
        String name = Prefixed.key("dash:jobs");
        coordis.reliableQueue("dash:jobs").push("first");
        By depthChart = By.cssSelector("td:nth-child(8)");
        String before = within(Duration.ofSeconds(5)).until(d -> d.findElements(row("queue", name)).stream()
                .findFirst().map(r -> r.findElement(depthChart)).filter(c -> "1".equals(c.getAttribute("data-last")))
                .map(c -> c.findElement(By.cssSelector("polyline.depth")).getAttribute("points")).orElse(null));
        for (int i = 0; i < 24; i++) {
            coordis.reliableQueue("dash:jobs").push("job-" + i);
        }
        String after = within(Duration.ofSeconds(5)).until(d -> d.findElements(row("queue", name)).stream().findFirst()
                .map(r -> r.findElement(depthChart)).filter(c -> "25".equals(c.getAttribute("data-last")))
                .map(c -> c.findElement(By.cssSelector("polyline.depth")).getAttribute("points")).orElse(null));
        assertThat(after).isNotEqualTo(before);
        assertThat(after.split(" ").length).as("points of the depth line").isGreaterThan(before.split(" ").length);
        String depth = within(Duration.ofSeconds(2)).until(d -> d.findElement(row("queue", name))
                .findElement(By.cssSelector("td.depth")).getText());
        assertThat(depth).isEqualTo("25");

        By throughputChart = By.cssSelector("td:nth-child(9) polyline.throughput");
        assertThat(heights(within(Duration.ofSeconds(2)).until(d -> d.findElement(row("queue", name))
                .findElement(throughputChart).getAttribute("points")))).as("nothing settled yet: a flat line").hasSize(1);
        try (Consumer consumer = coordis.reliableQueue("dash:jobs").consumer()) {
            for (int i = 0; i < 5; i++) {
                consumer.take(Duration.ofSeconds(5)).orElseThrow().ack();
            }
        }
        String rising = within(Duration.ofSeconds(5)).until(d -> d.findElements(row("queue", name)).stream().findFirst()
                .map(r -> r.findElement(throughputChart).getAttribute("points")).filter(p -> heights(p).size() > 1)
                .orElse(null));
        assertThat(heights(rising)).as("the throughput line left zero: %s", rising).hasSizeGreaterThan(1);
        // the line may have left zero at a sample taken between two acks: a later sample reaches all five
        List<Map<String, Object>> points = settledHistory(name);
        for (long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
             !Long.valueOf(5).equals(points.get(points.size() - 1).get("settled")) && System.nanoTime() < deadline; ) {
            Thread.sleep(100);
            points = settledHistory(name);
        }
        assertThat(points.get(points.size() - 1).get("settled")).as("the settled count").isEqualTo(5L);
        assertThat(points.stream().mapToDouble(p -> ((Number) p.get("settledPerSecond")).doubleValue()).sum())
                .as("messages settled per second, over the samples").isGreaterThan(0);
    }

    /** The dashboard's samples of queue {@code name}, oldest first. */
    private static List<Map<String, Object>> settledHistory(String name) throws IOException, InterruptedException {
        Map<String, Object> queues = map(map(TestJson.object(get("/api/state").body()).get("history")).get("queues"));
        return list(queues.get(name)).stream().map(TestJson::map).toList();
    }

    /** The distinct heights of an SVG polyline's points. */
    private static Set<String> heights(String points) {
        return Arrays.stream(points.split(" ")).map(p -> p.substring(p.indexOf(',') + 1))
                .collect(Collectors.toSet());
    }

    @Test
    @Order(3)
    void hostileNamesRenderAsTextAndRunNothing() throws Exception {
        List<String> hostile = List.of("<img src=x onerror=alert(1)>", "<svg onload=\"window.pwned=1\">",
                "\"><script>window.pwned=1</script>", "<b onmouseover=window.pwned=1>bold</b>");
        for (String n : hostile) {
            assertThat(raw.command("SET", Prefixed.key(n), "<i>tok</i>", "NX", "PX", "60000")).isEqualTo("OK");
        }
        WebDriver b = browser();
        for (String n : hostile) {
            String shown = within(Duration.ofSeconds(5)).until(d -> d.findElements(row("lock", Prefixed.key(n))).stream()
                    .findFirst().map(r -> r.findElement(By.cssSelector("td.name")).getText()).orElse(null));
            assertThat(shown).isEqualTo(Prefixed.key(n));
        }
        // the detail view (what inspect shows) keeps them text too
        click(row("lock", Prefixed.key(hostile.get(0))));
        within(Duration.ofSeconds(5)).until(d -> d.findElement(By.id("detail-text")).getText()
                .contains(Prefixed.key(hostile.get(0))));
        CliProcess.sleep(3 * REFRESH_MS);
        assertThatThrownBy(() -> b.switchTo().alert()).isInstanceOf(NoAlertPresentException.class);
        assertThat(b.findElements(By.tagName("img"))).as("injected img elements").isEmpty();
        assertThat(b.findElements(By.cssSelector("main script, aside script, main b, [onerror], [onload], [onmouseover]")))
                .as("injected elements or handlers").isEmpty();
        assertThat(b.findElements(By.tagName("script"))).as("only the page's own script").hasSize(1);
        assertThat(((JavascriptExecutor) b).executeScript("return typeof window.pwned")).isEqualTo("undefined");
        b.findElement(By.id("detail-close")).click();

        // the negative control: a page that wrote a name as markup would fail the checks above, and the
        // Content-Security-Policy still keeps the injected handler from running
        ((JavascriptExecutor) b).executeScript("const probe = document.createElement('div'); probe.id = 'probe';"
                + "probe.innerHTML = arguments[0]; document.body.appendChild(probe);",
                "<img src=x onerror=\"window.pwned=1\">");
        CliProcess.sleep(300);
        assertThat(b.findElements(By.cssSelector("[onerror]"))).as("what the checks catch").hasSize(1);
        assertThat(((JavascriptExecutor) b).executeScript("return typeof window.pwned")).as("blocked by the CSP")
                .isEqualTo("undefined");
        ((JavascriptExecutor) b).executeScript("document.getElementById('probe').remove();");
    }

    @Test
    @Order(4)
    void aScreenshotOfAFullPage() throws Exception {
        try (Lease lease = coordis.lock("orders:42", LockOptions.defaults().withTtl(Duration.ofSeconds(30))
                .withHolderId("billing@web-1:4242")).tryAcquire().orElseThrow();
             LeaderElection election = coordis.election("reports:scheduler")) {
            raw.command("SET", Prefixed.key("py:nightly-export"), "c2b9f1e0", "NX", "PX", "20000"); // a redis-py lock
            Leadership leadership = election.campaign(Duration.ofSeconds(5)).orElseThrow();
            Consumer consumer = coordis.reliableQueue("emails").consumer();
            try (RespClient subscriber = RespClient.connect(redis.server())) {
                subscriber.command("SUBSCRIBE", Prefixed.key("deploys"));
                coordis.signals().event("builds:done", Duration.ofMinutes(5)).signal("build 1842 ok");
                for (int i = 0; i < 40; i++) {
                    coordis.reliableQueue("emails").push("mail-" + i);
                    if (i % 4 == 0) {
                        consumer.take(Duration.ofSeconds(5)).orElseThrow().ack(); // for the throughput chart
                    }
                    CliProcess.sleep(REFRESH_MS / 2);
                }
                consumer.take(Duration.ofSeconds(5)).orElseThrow(); // one in flight
                WebDriver b = browser();
                within(Duration.ofSeconds(5)).until(d -> !d.findElements(row("election", Prefixed.key("reports:scheduler")))
                        .isEmpty() && !d.findElements(row("signal", Prefixed.key("deploys"))).isEmpty());
                click(row("lock", Prefixed.key("orders:42")));
                within(Duration.ofSeconds(5)).until(d -> d.findElement(By.id("detail-text")).getText()
                        .contains("billing@web-1:4242 (host web-1, pid 4242)"));
                b.findElement(By.id("detail-close")).click();
                File shot = ((TakesScreenshot) b).getScreenshotAs(OutputType.FILE);
                Files.createDirectories(SCREENSHOT.getParent());
                Files.copy(shot.toPath(), SCREENSHOT, StandardCopyOption.REPLACE_EXISTING);
                assertThat(Files.size(SCREENSHOT)).isGreaterThan(10_000);
            }
            consumer.close();
            leadership.resign();
            lease.release();
        }
    }

    @Test
    @Order(5)
    void theJsonViewHoldsTheDocumentsOfLsOutputJson() throws Exception {
        try (Lease lease = coordis.lock("dash:json").tryAcquire().orElseThrow()) {
            coordis.reliableQueue("dash:json-jobs").push("a");
            raw.command("SET", Prefixed.key("dash:foreign"), "tok-1", "NX", "PX", "60000");
            long made = System.currentTimeMillis();
            Map<String, Object> state = null;
            while (state == null || (Long) state.get("at") <= made) { // a sample taken after the objects were made
                CliProcess.sleep(REFRESH_MS / 4);
                state = TestJson.object(get("/api/state").body());
            }
            assertThat(state).containsKeys("at", "refreshMs", "match", "redis", "error", "listings", "history");
            assertThat(state.get("refreshMs")).isEqualTo(REFRESH_MS);
            assertThat(state.get("match")).isEqualTo(Prefixed.key("*"));
            assertThat(list(state.get("redis"))).containsExactly(redis.uri());
            InProcess cli = new InProcess();
            for (Object listing : list(state.get("listings"))) {
                Map<String, Object> dash = map(listing);
                String kind = (String) dash.get("kind");
                assertThat(cli.run("ls", kind, "-o", "json", "-u", redis.uri())).as(cli.err()).isZero();
                Map<String, Object> ls = TestJson.object(cli.out());
                assertThat(dash.keySet()).as(kind).isEqualTo(ls.keySet());
                assertThat(dash.get("match")).isEqualTo(ls.get("match"));
                assertThat(fields(dash)).as(kind + ": the dashboard holds no token").doesNotContain("token");
                assertThat(stable(dash)).as(kind + ", apart from the tokens").isEqualTo(stable(redacted(ls)));
                if (kind.equals("locks")) {
                    assertThat(cli.out()).as("ls -o json shows the token").contains(lease.token());
                }
            }
            assertThat(list(state.get("listings")).stream().map(l -> map(l).get("kind")))
                    .containsExactly("locks", "elections", "queues", "signals");
            Map<String, Object> history = map(state.get("history"));
            assertThat(map(history.get("queues"))).containsKey(Prefixed.key("dash:json-jobs"));
            lease.release();
        }
    }

    @Test
    @Order(5)
    void rateLimitersAndLatchesAppearOnThePageAndInTheJsonViewOnlyWhenThereAreAny() throws Exception {
        RateLimiter api = coordis.rateLimiter("dash:api", RateLimit.parse("10/1m")); // a permit every 6 s
        assertThat(api.tryAcquire(10).granted()).isTrue();
        coordis.countDownLatch("dash:batch", 2, Duration.ofHours(1)).countDown();
        String limiter = Prefixed.key("dash:api");
        String latch = Prefixed.key("dash:batch");
        WebDriver b = browser();
        List<String> cells = within(Duration.ofSeconds(10)).until(d -> d.findElements(row("latch", latch)).stream()
                .findFirst().map(r -> r.findElements(By.tagName("td")).stream().map(c -> c.getText()).toList())
                .orElse(null));
        assertThat(cells.subList(0, 4)).containsExactly(latch, "1", "closed", "0");
        String busy = within(Duration.ofSeconds(5)).until(d -> d.findElements(row("rate-limiter", limiter)).stream()
                .findFirst().map(r -> r.findElements(By.tagName("td")).get(1).getText()).orElse(null));
        assertThat(busy).as("busy for about a minute").matches("\\d+\\.\\ds|\\dm\\d\\ds");
        assertThat(b.findElement(By.id("rate-limiters")).isDisplayed()).isTrue();
        click(row("rate-limiter", limiter));
        within(Duration.ofSeconds(5)).until(d -> d.findElement(By.id("detail-text")).getText()
                .contains("not stored: each client applies its own"));
        b.findElement(By.id("detail-close")).click();

        Map<String, Object> state = TestJson.object(get("/api/state").body());
        assertThat(list(state.get("listings")).stream().map(l -> map(l).get("kind")))
                .containsExactly("locks", "elections", "queues", "signals", "rate-limiters", "latches");
        InProcess cli = new InProcess();
        for (Object listing : list(state.get("listings"))) {
            Map<String, Object> dash = map(listing);
            String kind = (String) dash.get("kind");
            assertThat(cli.run("ls", kind, "-o", "json", "-u", redis.uri())).as(cli.err()).isZero();
            assertThat(stable(dash)).as(kind).isEqualTo(stable(redacted(TestJson.object(cli.out()))));
        }
        HttpResponse<String> inspected = get("/api/inspect?kind=latch&name=" + latch);
        assertThat(inspected.statusCode()).isEqualTo(200);
        assertThat(map(TestJson.object(inspected.body()).get("inspect"))).containsEntry("count", 1L)
                .containsEntry("open", false);

        raw.command("DEL", Prefixed.derived("dash:api", "rate"), Prefixed.derived("dash:batch", "latch"));
        within(Duration.ofSeconds(5)).until(d -> !d.findElement(By.id("latches")).isDisplayed()
                && !d.findElement(By.id("rate-limiters")).isDisplayed());
    }

    /** A listing's items by name without the figures that move between two reads (times, TTLs, ages). */
    private static Map<String, Object> stable(Map<String, Object> doc) {
        return list(doc.get("items")).stream().map(TestJson::map).collect(Collectors.toMap(
                m -> String.valueOf(m.containsKey("name") ? m.get("name") : m.get("channel")),
                m -> m.entrySet().stream().filter(e -> !e.getKey().endsWith("Ms") && !e.getKey().equals("consumers"))
                        .collect(Collectors.toMap(Map.Entry::getKey, e -> String.valueOf(withoutTimes(e.getValue())),
                                (x, y) -> x, TreeMap::new)),
                (x, y) -> x, TreeMap::new));
    }

    /** {@code value} without the fields that move between two reads ({@code ...Ms}), at any depth. */
    private static Object withoutTimes(Object value) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new TreeMap<>();
            m.forEach((k, v) -> {
                if (!((String) k).endsWith("Ms")) {
                    out.put((String) k, withoutTimes(v));
                }
            });
            return out;
        }
        return value instanceof List<?> l ? l.stream().map(DashboardIT::withoutTimes).toList() : value;
    }

    /** {@code doc} as the dashboard serves it: without the {@code token} fields, at any depth. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> redacted(Map<String, Object> doc) {
        return (Map<String, Object>) without(doc, "token");
    }

    private static Object without(Object value, String field) {
        if (value instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            m.forEach((k, v) -> {
                if (!k.equals(field)) {
                    out.put((String) k, without(v, field));
                }
            });
            return out;
        }
        return value instanceof List<?> l ? l.stream().map(v -> without(v, field)).toList() : value;
    }

    /** The names of every field of {@code value}, at any depth. */
    private static Set<String> fields(Object value) {
        Set<String> names = new TreeSet<>();
        if (value instanceof Map<?, ?> m) {
            m.forEach((k, v) -> {
                names.add((String) k);
                names.addAll(fields(v));
            });
        } else if (value instanceof List<?> l) {
            l.forEach(v -> names.addAll(fields(v)));
        }
        return names;
    }

    @Test
    @Order(6)
    void noAnswerOfTheDashboardHoldsAToken() throws Exception {
        String foreign = "foreign-secret-7c1e";
        Semaphore pool = coordis.semaphore("dash:pool", 2);
        try (Lease lease = coordis.lock("dash:secret").tryAcquire().orElseThrow();
             Lease read = coordis.readWriteLock("dash:shared").readLock().tryAcquire().orElseThrow();
             Permit permit = pool.tryAcquire().orElseThrow()) {
            raw.command("SET", Prefixed.key("dash:foreign-secret"), foreign, "NX", "PX", "60000");
            List<String> tokens = List.of(lease.token(), read.token(), permit.token(), foreign);
            long made = System.currentTimeMillis();
            Map<String, Object> state = null;
            String body = null;
            while (state == null || (Long) state.get("at") <= made) { // a sample taken after the objects were made
                CliProcess.sleep(REFRESH_MS / 4);
                body = get("/api/state").body();
                state = TestJson.object(body);
            }
            assertThat(body).as("the objects are shown").contains(Prefixed.key("dash:secret"),
                    Prefixed.key("dash:shared"), Prefixed.key("dash:pool"), Prefixed.key("dash:foreign-secret"));
            List<String> answers = new ArrayList<>(List.of(body));
            for (String[] asked : List.of(new String[] {"lock", "dash:secret"}, new String[] {"lock", "dash:shared"},
                    new String[] {"lock", "dash:foreign-secret"}, new String[] {"semaphore", "dash:pool"})) {
                HttpResponse<String> one = get("/api/inspect?kind=" + asked[0] + "&name=" + Prefixed.key(asked[1]));
                assertThat(one.statusCode()).as(asked[1]).isEqualTo(200);
                answers.add(one.body());
            }
            for (String answer : answers) {
                assertThat(fields(TestJson.object(answer))).as(answer).doesNotContain("token");
                for (String token : tokens) {
                    assertThat(answer).as("a token leaked").doesNotContain(token);
                }
            }
            InProcess cli = new InProcess();
            assertThat(cli.run("inspect", "lock", "dash:secret", "-o", "json", "-u", redis.uri())).isZero();
            assertThat(cli.out()).as("the command line, run by whoever may, shows the token").contains(lease.token());
        }
    }

    @Test
    @Order(6)
    void everyAnswerForbidsInlineScriptAndOnlyReadsAreAllowed() throws Exception {
        HttpResponse<String> html = get("/");
        assertThat(html.statusCode()).isEqualTo(200);
        assertThat(html.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        String csp = html.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertThat(csp).contains("script-src 'self'", "frame-ancestors 'none'").doesNotContain("unsafe-inline");
        assertThat(html.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(html.body()).doesNotContain(" on", "<script>").contains("<script src=\"dashboard.js\"");
        assertThat(get("/dashboard.js").headers().firstValue("Content-Type")).hasValue("text/javascript; charset=utf-8");
        assertThat(get("/dashboard.css").headers().firstValue("Content-Type")).hasValue("text/css; charset=utf-8");
        HttpResponse<String> state = get("/api/state");
        assertThat(state.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        assertThat(state.headers().firstValue("Content-Security-Policy")).hasValue(csp);

        for (String method : List.of("POST", "PUT", "DELETE", "PATCH")) {
            HttpResponse<String> refused = http.send(HttpRequest.newBuilder(page.resolve("/api/state"))
                    .method(method, HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).as(method).isEqualTo(405);
            assertThat(refused.headers().firstValue("Allow")).hasValue("GET, HEAD");
        }
        HttpResponse<String> head = http.send(HttpRequest.newBuilder(page).method("HEAD",
                HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(get("/nothing-here").statusCode()).isEqualTo(404);
        assertThat(get("/api/inspect?kind=lock&name=" + Prefixed.key("nobody")).statusCode()).isEqualTo(404);
        assertThat(get("/api/inspect?kind=castle&name=x").statusCode()).isEqualTo(400);
        // a page elsewhere that rebinds its DNS name to 127.0.0.1 is not answered
        assertThat(statusLine("GET / HTTP/1.1\r\nHost: attacker.example:" + page.getPort() + "\r\nConnection: close\r\n\r\n"))
                .contains(" 403 ");
    }

    @Test
    @Order(6)
    void aNonLoopbackAddressIsRefusedWithoutAllowRemote() {
        InProcess cli = new InProcess();
        assertThat(cli.run("dashboard", "-u", redis.uri(), "--listen", "0.0.0.0:0")).isEqualTo(64);
        assertThat(cli.err()).contains("--listen 0.0.0.0:0 is not a loopback address", "--allow-remote");
        assertThat(cli.run("dashboard", "-u", redis.uri(), "--listen", "localhost")).isEqualTo(64);
        assertThat(cli.err()).contains("give HOST:PORT, e.g. 127.0.0.1:7380");
        assertThat(cli.run("dashboard", "-u", redis.uri(), "--refresh", "10ms")).isEqualTo(64);
        assertThat(cli.err()).contains("--refresh must be between 100ms and 1m");
    }

    @Test
    @Order(7)
    void withAllowRemoteItListensEverywhereWarnsAndStopsOnSigtermWithStatusZero() throws Exception {
        try (CliProcess remote = CliProcess.start("dashboard", "-u", redis.uri(), "--listen", "0.0.0.0:0",
                "--allow-remote")) {
            remote.awaitStdout("coordis dashboard: http://");
            assertThat(remote.stderr()).contains("warning: listening on 0.0.0.0:0 without a login");
            String at = remote.stdout().lines().filter(l -> l.startsWith("coordis dashboard: ")).findFirst().orElseThrow();
            int port = URI.create(at.substring("coordis dashboard: ".length()).strip()).getPort();
            HttpResponse<String> state = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                    + "/api/state")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(state.statusCode()).isEqualTo(200);
            remote.terminate();
            assertThat(remote.exitCode()).as(remote.stderr()).isZero();
        }
    }

    @Test
    @Order(8)
    void ctrlCStopsItWithStatusZero() {
        dashboard.interrupt();
        assertThat(dashboard.exitCode()).as(dashboard.stderr()).isZero();
        assertThat(dashboard.stderr()).contains("dashboard stopped");
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(page.resolve(path)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String statusLine(String request) throws IOException {
        try (Socket s = new Socket(page.getHost(), page.getPort())) {
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        }
    }
}
