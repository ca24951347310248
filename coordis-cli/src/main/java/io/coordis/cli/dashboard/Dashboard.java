package io.coordis.cli.dashboard;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.coordis.CoordisException;
import io.coordis.WrongTypeException;
import io.coordis.cli.support.Json;
import io.coordis.cli.view.Inspection;
import io.coordis.inspect.Glob;
import io.coordis.inspect.Inspector;
import io.coordis.inspect.ObjectKind;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The dashboard's web server (the JDK's {@code com.sun.net.httpserver}): the page, its script and style sheet from
 * the jar, the state as JSON at {@code /api/state} (the documents of {@code ls -o json}, redacted, and the recent
 * history), and one object as {@code inspect -o json} shows it, redacted, at {@code /api/inspect?kind=KIND&name=NAME}:
 * no answer holds a token, which would let a reader release or extend what it holds. Read-only: GET and
 * HEAD, anything else is refused with 405. Every answer forbids inline script (Content-Security-Policy) and content
 * sniffing; bound to a loopback address, it answers only requests addressed to a loopback name, so a web page
 * elsewhere cannot read it through a DNS name rebound to 127.0.0.1.
 */
final class Dashboard implements AutoCloseable {
    static final String CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    /** The stable path of the JSON view. */
    static final String STATE_PATH = "/api/state";
    static final String INSPECT_PATH = "/api/inspect";
    private static final Set<String> LOOPBACK_NAMES = Set.of("localhost", "127.0.0.1", "[::1]");
    private static final Map<String, Asset> ASSETS = Map.of(
            "/", Asset.load("index.html", "text/html; charset=utf-8"),
            "/dashboard.js", Asset.load("dashboard.js", "text/javascript; charset=utf-8"),
            "/dashboard.css", Asset.load("dashboard.css", "text/css; charset=utf-8"));

    private final HttpServer server;
    private final ExecutorService handlers;
    private final Snapshots snapshots;
    private final Inspector inspector;
    private final Glob shown;
    private final boolean loopback;

    private Dashboard(HttpServer server, Snapshots snapshots, Inspector inspector, Glob shown) {
        this.server = server;
        this.snapshots = snapshots;
        this.inspector = inspector;
        this.shown = shown;
        this.loopback = server.getAddress().getAddress().isLoopbackAddress();
        this.handlers = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "coordis-dashboard-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(handlers);
        server.createContext("/", this::handle);
    }

    /**
     * Listens on {@code address} (port 0: a free port) and serves until closed.
     *
     * @param shown the glob of the names the page shows; {@code inspect} answers for those only
     * @throws UncheckedIOException when the address cannot be bound (in use, not this machine's)
     */
    static Dashboard start(InetSocketAddress address, Snapshots snapshots, Inspector inspector, Glob shown) {
        HttpServer server;
        try {
            server = HttpServer.create(address, 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + address.getHostString() + ":" + address.getPort()
                    + " (" + e.getMessage() + "): choose another --listen address or port", e);
        }
        Dashboard d = new Dashboard(server, snapshots, inspector, shown);
        server.start();
        return d;
    }

    /** The page's address, e.g. {@code http://127.0.0.1:7380/}. */
    URI address() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().getHostAddress();
        if (a.getAddress().isAnyLocalAddress()) { // every interface: name one a browser can open
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                host = InetAddress.getLoopbackAddress().getHostAddress();
            }
        }
        return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort() + "/");
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Headers h = exchange.getResponseHeaders();
            h.set("Content-Security-Policy", CSP);
            h.set("X-Content-Type-Options", "nosniff");
            h.set("X-Frame-Options", "DENY");
            h.set("Referrer-Policy", "no-referrer");
            h.set("Cache-Control", "no-store");
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                h.set("Allow", "GET, HEAD");
                send(exchange, 405, error("the dashboard is read-only: " + method + " is not allowed, only GET and HEAD"));
                return;
            }
            if (loopback && !loopbackHost(exchange.getRequestHeaders().getFirst("Host"))) {
                send(exchange, 403, error("this dashboard answers only at " + address()));
                return;
            }
            String path = exchange.getRequestURI().getPath();
            Asset asset = ASSETS.get(path.equals("/index.html") ? "/" : path);
            if (asset != null) {
                send(exchange, 200, asset.type(), asset.body());
            } else if (path.equals(STATE_PATH)) {
                send(exchange, 200, "application/json; charset=utf-8", snapshots.latest());
            } else if (path.equals(INSPECT_PATH)) {
                inspect(exchange);
            } else {
                send(exchange, 404, error("nothing at " + path + ": the page is at /, its data at " + STATE_PATH));
            }
        }
    }

    private void inspect(HttpExchange exchange) throws IOException {
        Map<String, String> query = query(exchange.getRequestURI().getRawQuery());
        Optional<ObjectKind> kind = ObjectKind.named(query.getOrDefault("kind", ""));
        String name = query.getOrDefault("name", "");
        if (kind.isEmpty() || name.isEmpty()) {
            send(exchange, 400, error("give kind (lock, election, queue, signal, semaphore, rate-limiter or latch) "
                    + "and name: " + INSPECT_PATH + "?kind=lock&name=orders"));
            return;
        }
        if (!shown.matches(name)) {
            send(exchange, 404, error("'" + name + "' is not among the names this dashboard shows ("
                    + shown.pattern() + ")"));
            return;
        }
        try {
            Optional<Inspection> view = Inspection.of(inspector, kind.get(), name, true);
            if (view.isEmpty()) {
                send(exchange, 404, error("no " + kind.get().singular() + " '" + name + "'"));
                return;
            }
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("kind", kind.get().singular());
            doc.put("name", name);
            doc.put("inspect", view.get().json());
            doc.put("text", view.get().text());
            send(exchange, 200, doc);
        } catch (WrongTypeException e) {
            send(exchange, 409, error(e.getMessage()));
        } catch (CoordisException e) {
            send(exchange, 503, error(e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            send(exchange, 503, error("the dashboard is stopping"));
        }
    }

    private boolean loopbackHost(String host) {
        if (host == null) {
            return false;
        }
        String name = host.toLowerCase(Locale.ROOT);
        int colon = name.lastIndexOf(':');
        if (colon > name.lastIndexOf(']')) {
            name = name.substring(0, colon);
        }
        return LOOPBACK_NAMES.contains(name);
    }

    private static Map<String, String> query(String raw) {
        Map<String, String> out = new HashMap<>();
        if (raw == null) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                out.putIfAbsent(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return out;
    }

    private static Map<String, Object> error(String message) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("error", message);
        return doc;
    }

    private static void send(HttpExchange exchange, int status, Map<String, Object> doc) throws IOException {
        send(exchange, status, "application/json; charset=utf-8", Json.write(doc).getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        if (exchange.getRequestMethod().equals("HEAD")) {
            exchange.getResponseHeaders().set("Content-Length", Integer.toString(body.length));
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    /** Stops listening at once; requests being answered are cut off. */
    @Override
    public void close() {
        server.stop(0);
        handlers.shutdownNow();
    }

    /** A file of the page, served from the jar. */
    private record Asset(String type, byte[] body) {
        static Asset load(String name, String type) {
            try (InputStream in = Dashboard.class.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException("the jar lacks io/coordis/cli/dashboard/" + name);
                }
                return new Asset(type, in.readAllBytes());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the dashboard's " + name + " from the jar", e);
            }
        }
    }
}
