package io.coordis.testkit;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** Reading RESP2/RESP3 replies off a stream byte by byte, without buffering past their end. */
final class Resp {
    private Resp() {
    }

    /** Reads exactly one whole reply (with everything it nests) from {@code in} and discards it. */
    static void skipOne(InputStream in) throws IOException {
        int type = next(in);
        switch (type) {
            case '+', '-', ':', '_', ',', '#', '(' -> line(in);
            case '$', '=', '!' -> {
                long length = Long.parseLong(line(in));
                if (length >= 0) {
                    skipBytes(in, length + 2);
                }
            }
            case '*', '~', '>' -> skipMany(in, Long.parseLong(line(in)));
            case '%' -> skipMany(in, 2 * Long.parseLong(line(in)));
            case '|' -> {
                // an attribute map, then the reply it describes
                skipMany(in, 2 * Long.parseLong(line(in)));
                skipOne(in);
            }
            default -> throw new IOException("not a RESP reply: first byte " + type);
        }
    }

    private static void skipMany(InputStream in, long count) throws IOException {
        for (long i = 0; i < count; i++) {
            skipOne(in);
        }
    }

    /** The rest of a line (UTF-8), without its CRLF. */
    static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(32);
        while (true) {
            int b = next(in);
            if (b == '\r') {
                if (next(in) != '\n') {
                    throw new IOException("malformed RESP line: CR not followed by LF");
                }
                return line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
    }

    private static void skipBytes(InputStream in, long count) throws IOException {
        for (long i = 0; i < count; i++) {
            next(in);
        }
    }

    private static int next(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new EOFException("the stream ended inside a RESP reply");
        }
        return b;
    }
}
