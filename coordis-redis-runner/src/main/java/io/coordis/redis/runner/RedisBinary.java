package io.coordis.redis.runner;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@code redis-server} executable and its version.
 *
 * <p>{@link #resolve()} looks in this order:
 * <ol>
 *   <li>if the system property {@code coordis.redis.embedded=true} or the environment variable
 *       {@code COORDIS_REDIS_EMBEDDED=1} (or {@code true}) is set: the binary shipped in the
 *       embedded-redis jar, see {@link #embedded()};</li>
 *   <li>the system property {@code coordis.redis.server}, then the environment variable
 *       {@code COORDIS_REDIS_SERVER} (path to an executable; it must exist);</li>
 *   <li>{@code redis-server} on the {@code PATH};</li>
 *   <li>the embedded binary.</li>
 * </ol>
 *
 * <p>The embedded binary is extracted once per machine into
 * {@code ${java.io.tmpdir}/coordis-redis-<resource>/redis-server}; it is written to a temporary file,
 * made executable and atomically moved into place, so concurrent JVMs never run a partial file.
 *
 * <p>Instances are immutable and safe to share between threads.
 */
public final class RedisBinary {

    /** System property forcing the embedded binary when {@code "true"}. */
    public static final String EMBEDDED_PROPERTY = "coordis.redis.embedded";
    /** Environment variable forcing the embedded binary when {@code "1"} or {@code "true"}. */
    public static final String EMBEDDED_ENV = "COORDIS_REDIS_EMBEDDED";
    /** System property naming the redis-server executable. */
    public static final String SERVER_PROPERTY = "coordis.redis.server";
    /** Environment variable naming the redis-server executable. */
    public static final String SERVER_ENV = "COORDIS_REDIS_SERVER";

    /** Where a binary was found. */
    public enum Source {
        /** The system property {@value RedisBinary#SERVER_PROPERTY}. */
        PROPERTY,
        /** The environment variable {@value RedisBinary#SERVER_ENV}. */
        ENVIRONMENT,
        /** {@code redis-server} on the {@code PATH}. */
        PATH,
        /** The binary shipped in the embedded-redis jar. */
        EMBEDDED,
        /** The path given to {@link RedisBinary#of(Path)}. */
        EXPLICIT
    }

    private static final Logger log = LoggerFactory.getLogger(RedisBinary.class);
    private static final Pattern VERSION = Pattern.compile("v=(\\d+\\.\\d+\\.\\d+)");
    private static final Object EXTRACT_LOCK = new Object();
    private static final Map<Path, String> VERSIONS = new ConcurrentHashMap<>();
    private static volatile RedisBinary extracted;

    private final Path path;
    private final Source source;

    private RedisBinary(Path path, Source source) {
        this.path = path;
        this.source = source;
    }

    /**
     * Finds a redis-server executable following the order described in the class documentation.
     *
     * @return the binary found
     * @throws IllegalStateException if a configured path does not exist or no binary can be found
     */
    public static RedisBinary resolve() {
        if (embeddedForced()) {
            return embedded();
        }
        String prop = System.getProperty(SERVER_PROPERTY);
        if (prop != null && !prop.isBlank()) {
            return configured(prop, Source.PROPERTY, "system property " + SERVER_PROPERTY);
        }
        String env = System.getenv(SERVER_ENV);
        if (env != null && !env.isBlank()) {
            return configured(env, Source.ENVIRONMENT, "environment variable " + SERVER_ENV);
        }
        Path onPath = ProcessSupport.findOnPath("redis-server");
        if (onPath != null) {
            return new RedisBinary(onPath, Source.PATH);
        }
        return embedded();
    }

    /**
     * Uses the given executable as is.
     *
     * @param executable the path of a {@code redis-server}
     * @return the binary, with source {@link Source#EXPLICIT}
     */
    public static RedisBinary of(Path executable) {
        Objects.requireNonNull(executable, "executable");
        if (!Files.isExecutable(executable)) {
            throw new IllegalArgumentException("redis-server binary " + executable + " is not an executable file");
        }
        return new RedisBinary(executable, Source.EXPLICIT);
    }

    /**
     * The binary shipped inside the embedded-redis jar for this OS and CPU, extracted to a cache
     * file if not already there. Blocks while extracting (a few MB).
     *
     * @return the embedded binary
     * @throws IllegalStateException if there is no binary for this platform or it is not on the classpath
     */
    public static RedisBinary embedded() {
        RedisBinary cached = extracted;
        if (cached != null && Files.isExecutable(cached.path)) {
            return cached;
        }
        String resource = embeddedResource();
        Path dir = Paths.get(System.getProperty("java.io.tmpdir"), "coordis-redis-" + resource.substring("redis-server-".length()));
        Path target = dir.resolve("redis-server");
        synchronized (EXTRACT_LOCK) {
            // through the class loader: on the module path the binaries lie in another module's unnamed package
            try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("embedded redis binary /" + resource
                            + " is not on the classpath (is com.github.codemonstur:embedded-redis a dependency?)");
                }
                byte[] bytes = in.readAllBytes();
                if (!(Files.isExecutable(target) && Files.size(target) == bytes.length)) {
                    extract(bytes, dir, target);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot extract embedded redis binary " + resource + " to " + target, e);
            }
        }
        RedisBinary binary = new RedisBinary(target, Source.EMBEDDED);
        extracted = binary;
        return binary;
    }

    /**
     * True if the embedded binary is forced by system property or environment.
     *
     * @return {@code true} when the embedded binary is forced
     */
    public static boolean embeddedForced() {
        if (Boolean.parseBoolean(System.getProperty(EMBEDDED_PROPERTY, "false"))) {
            return true;
        }
        String env = System.getenv(EMBEDDED_ENV);
        return env != null && (env.equals("1") || env.equalsIgnoreCase("true"));
    }

    /**
     * Absolute path of the executable.
     *
     * @return the path
     */
    public Path path() {
        return path;
    }

    /**
     * Where the executable was found.
     *
     * @return the source
     */
    public Source source() {
        return source;
    }

    /**
     * The version reported by {@code redis-server --version}, e.g. {@code "7.0.15"}. Runs the binary
     * once (blocking, at most 10 s) and caches the result.
     *
     * @return the version
     * @throws IllegalStateException if the binary cannot be run or prints no version
     */
    public String version() {
        return VERSIONS.computeIfAbsent(path, p -> readVersion());
    }

    /**
     * Major version number, e.g. {@code 7} for {@code 7.0.15}.
     *
     * @return the major version
     */
    public int majorVersion() {
        return Integer.parseInt(version().substring(0, version().indexOf('.')));
    }

    @Override
    public String toString() {
        return "RedisBinary[" + path + " (" + source + ")]";
    }

    private String readVersion() {
        try {
            Process p = new ProcessBuilder(path.toString(), "--version").redirectErrorStream(true).start();
            String out;
            try (InputStream in = p.getInputStream()) {
                out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(path + " --version did not exit within 10s");
            }
            Matcher m = VERSION.matcher(out);
            if (!m.find()) {
                throw new IllegalStateException(path + " --version printed no 'v=x.y.z' version: " + out.strip());
            }
            return m.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + path + " --version", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + path + " --version", e);
        }
    }

    private static RedisBinary configured(String value, Source source, String origin) {
        Path p = Paths.get(value);
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException(origin + " names " + value + ", which is not an executable file");
        }
        return new RedisBinary(p.toAbsolutePath(), source);
    }

    static String embeddedResource() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
        boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
        if (os.contains("linux")) {
            if (x64) {
                return "redis-server-6.2.6-v5-linux-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.7-linux-arm64";
            }
        } else if (os.contains("mac") || os.contains("darwin")) {
            if (x64) {
                return "redis-server-6.2.6-v5-darwin-amd64";
            }
            if (arm64) {
                return "redis-server-6.2.6-v5-darwin-arm64";
            }
        }
        throw new IllegalStateException("no embedded redis-server binary for os.name=" + os + " os.arch=" + arch
                + "; install redis-server or set " + SERVER_ENV);
    }

    private static void extract(byte[] bytes, Path dir, Path target) throws IOException {
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "redis-server-", ".part");
        try {
            Files.write(tmp, bytes);
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwxr-xr-x"));
            } catch (UnsupportedOperationException e) {
                if (!tmp.toFile().setExecutable(true, false)) {
                    throw new IOException("cannot make " + tmp + " executable", e);
                }
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            log.info("extracted embedded redis-server to {}", target);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
