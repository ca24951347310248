package io.coordis.redis.runner;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The text of a {@code redis.conf}, one directive per line, every token quoted so that spaces, quotes and
 * backslashes in values (paths, passwords) reach the server unchanged. Not thread-safe: build it on one thread.
 */
public final class RedisConfig {

    private final StringBuilder text = new StringBuilder();

    /**
     * The directives every server of the runner starts with: {@code port}, {@code bind}, {@code daemonize no} (the
     * runner owns the process), {@code dir} and, inside it, the {@code logfile} {@link RedisProcess#logFile()} reads.
     *
     * @param port the port to listen on ({@code 0}: no plain TCP, as for a TLS-only server)
     * @param bind the only address to listen on
     * @param dir  the server's directory
     * @return the configuration
     */
    public static RedisConfig of(int port, String bind, Path dir) {
        return new RedisConfig()
                .line("port", Integer.toString(port))
                .line("bind", bind)
                .line("daemonize", "no")
                .line("dir", dir.toAbsolutePath().toString())
                .line("logfile", dir.resolve(RedisProcess.LOG_FILE).toAbsolutePath().toString());
    }

    /**
     * Appends one directive: its name, then its arguments.
     *
     * @param tokens the directive's name, then its arguments
     * @return this configuration
     */
    public RedisConfig line(String... tokens) {
        for (int i = 0; i < tokens.length; i++) {
            if (i > 0) {
                text.append(' ');
            }
            text.append(quote(tokens[i]));
        }
        text.append('\n');
        return this;
    }

    /**
     * {@code save ""}: no RDB snapshots.
     *
     * @return this configuration
     */
    public RedisConfig noSnapshots() {
        text.append("save \"\"\n");
        return this;
    }

    @Override
    public String toString() {
        return text.toString();
    }

    /**
     * {@code args} as a log or an error message may show them: the value after {@code --requirepass} or
     * {@code --masterauth}, and an ACL password ({@code >secret}), as {@code ***}.
     *
     * @param args a command line's arguments
     * @return the arguments with passwords masked
     */
    public static List<String> maskArgs(List<String> args) {
        List<String> out = new ArrayList<>();
        boolean maskNext = false;
        for (String a : args) {
            if (maskNext) {
                out.add("***");
                maskNext = false;
            } else if (a.startsWith(">")) {
                out.add(">***");
            } else {
                out.add(a);
                maskNext = a.equalsIgnoreCase("--requirepass") || a.equalsIgnoreCase("--masterauth");
            }
        }
        return out;
    }

    private static String quote(String token) {
        StringBuilder sb = new StringBuilder("\"");
        for (char c : token.toCharArray()) {
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
