package io.coordis.ratelimit;

import io.coordis.Coordis;
import io.coordis.TestClients;
import io.coordis.testkit.Prefixed;
import io.coordis.testkit.RespClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Child-JVM main for {@link SkewedClients}: asks one limiter for a permit at a steady pace, either through Coordis
 * ({@code mode=coordis}) or through the client-clock control script ({@code mode=client-clock}, scoring by this JVM's
 * clock, which the test may skew). Prints {@code READY}, waits for {@code GO} on stdin, asks for {@code seconds}, then
 * prints {@code DONE granted first last skew step}: the permits granted, Redis's clock (microseconds) just before the first
 * request and just after the last reply, how far this JVM's clock is from Redis's (ms), and how far its clock stepped
 * during the asking (ms: the widest spread of wall minus monotonic time seen, read at every request). Exits when its
 * stdin closes.
 *
 * <p>Arguments: {@code host=... port=... url=... mode=... name=... limit=... asks=<per second> seconds=...}.
 */
public final class RateProcess {
    private RateProcess() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new LinkedHashMap<>();
        for (String arg : args) {
            String[] kv = arg.split("=", 2);
            a.put(kv[0], kv[1]);
        }
        RateLimit limit = RateLimit.parse(a.get("limit"));
        long pace = TimeUnit.SECONDS.toNanos(1) / Integer.parseInt(a.get("asks"));
        long runFor = TimeUnit.SECONDS.toNanos(Integer.parseInt(a.get("seconds")));
        String control = a.get("mode").equals("client-clock") ? controlScript() : null;
        try (Coordis client = TestClients.connect(a.get("url"));
             RespClient redis = RespClient.connect(a.get("host"), Integer.parseInt(a.get("port")))) {
            RateLimiter limiter = client.rateLimiter(a.get("name"), limit);
            client.rateLimiter(a.get("name") + ":warm-up", limit).tryAcquire();
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            System.out.println("READY");
            System.out.flush();
            if (!"GO".equals(in.readLine())) {
                Runtime.getRuntime().halt(3);
            }
            exitWhenStdinCloses(System.in);
            long granted = 0;
            long first = micros(redis);
            long start = System.nanoTime();
            long next = start;
            long lowestOffset = Long.MAX_VALUE;
            long highestOffset = Long.MIN_VALUE;
            while (System.nanoTime() - start < runFor) {
                long offset = System.currentTimeMillis() - System.nanoTime() / 1_000_000;
                lowestOffset = Math.min(lowestOffset, offset);
                highestOffset = Math.max(highestOffset, offset);
                boolean yes = control == null ? limiter.tryAcquire().granted() : ask(redis, control, a.get("name"), limit);
                if (yes) {
                    granted++;
                }
                next += pace;
                long sleep = next - System.nanoTime();
                if (sleep > 0) {
                    TimeUnit.NANOSECONDS.sleep(sleep);
                }
            }
            long last = micros(redis);
            long skewMillis = System.currentTimeMillis() - last / 1_000;
            System.out.println("DONE " + granted + " " + first + " " + last + " " + skewMillis + " "
                    + (highestOffset - lowestOffset));
            System.out.flush();
        }
        System.exit(0);
    }

    /** One request to the control script, with this JVM's clock. */
    private static boolean ask(RespClient redis, String script, String name, RateLimit limit) {
        String base = Prefixed.key(name);
        Object reply = redis.command("EVAL", script, "2", "{" + base + "}:available", "{" + base + "}:grants",
                Long.toString(System.currentTimeMillis()), Long.toString(limit.period().toMillis()),
                Integer.toString(limit.permits()), UUID.randomUUID().toString());
        return Long.valueOf(1).equals(reply);
    }

    private static String controlScript() throws IOException {
        try (InputStream in = RateProcess.class.getResourceAsStream("client-clock-acquire.lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @SuppressWarnings("unchecked")
    private static long micros(RespClient redis) {
        List<Object> time = (List<Object>) redis.command("TIME");
        return Long.parseLong(time.get(0).toString()) * 1_000_000 + Long.parseLong(time.get(1).toString());
    }

    private static void exitWhenStdinCloses(InputStream in) {
        Thread t = new Thread(() -> {
            try {
                while (in.read() >= 0) {
                    // ignore input
                }
            } catch (IOException ignored) {
                // treat as closed
            }
            Runtime.getRuntime().halt(3);
        }, "stdin-watch");
        t.setDaemon(true);
        t.start();
    }
}
