package io.coordis.cli;

import io.coordis.redis.runner.RedisProcess;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * The commands the launcher runs once in the background, on a user's first command, against a redis-server of its
 * own, so that the class-data archive made from the classes this JVM loads ({@code -XX:DumpLoadedClassList}, or
 * the ahead-of-time cache it records at its exit; in the user's cache directory) holds the classes that short
 * commands load: parsing, connecting, a lock taken and released around a child process, a listing, help. Prints
 * nothing; a failure only makes the archive smaller.
 */
final class Rehearsal {
    private Rehearsal() {
    }

    public static void main(String[] args) {
        PrintStream quiet = new PrintStream(OutputStream.nullOutputStream());
        try (RedisProcess server = RedisProcess.builder().start()) {
            Map<String, String> env = Map.of(CoordisCommand.URL_ENV, server.uri());
            for (List<String> command : List.of(
                    List.of("--version"),
                    List.of("--help"),
                    List.of("lock", "--help"),
                    List.of("lock", "rehearsal", "--", "true"),
                    List.of("lock", "-q", "rehearsal", "--", "true"),
                    List.of("ls"))) {
                Main.run(command.toArray(String[]::new), InputStream.nullInputStream(), quiet, quiet, env);
            }
        } catch (RuntimeException e) {
            System.err.println("coordis: the class-data archive may lack classes: " + e);
        }
    }
}
