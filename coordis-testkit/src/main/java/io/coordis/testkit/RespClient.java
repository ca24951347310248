package io.coordis.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A minimal, blocking RESP2 client over a plain or TLS socket, enough to administer test servers
 * ({@code PING}, {@code SHUTDOWN}, {@code INFO}, {@code FLUSHALL}) and to observe faults from tests.
 *
 * <p>Reply mapping: simple string and bulk string &rarr; {@link String} (UTF-8), integer &rarr;
 * {@link Long}, array &rarr; {@code List<Object>}, nil &rarr; {@code null}. A top-level error reply
 * is thrown as {@link RespException}; an error nested inside an array (e.g. in an {@code EXEC}
 * result) is returned as a {@link RespException} element.
 *
 * <p>Every read blocks for at most the configured timeout; when it elapses an
 * {@link UncheckedIOException} whose cause is a {@link java.net.SocketTimeoutException} is thrown
 * and the connection should be considered unusable. Other I/O failures (reset, EOF) are also
 * thrown as {@link UncheckedIOException}. Not thread-safe.
 */
public final class RespClient implements AutoCloseable {

    /** Default connect and read timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Connects with {@link #DEFAULT_TIMEOUT} as connect and read timeout.
     *
     * @param host the server's host
     * @param port the server's port
     * @return the connected client; close it when done
     * @throws UncheckedIOException if the connection cannot be established
     */
    public static RespClient connect(String host, int port) {
        return connect(host, port, DEFAULT_TIMEOUT);
    }

    /**
     * Connects to {@code host:port}. Blocks for at most {@code timeout} while connecting; the same
     * value is used as the read timeout of every reply.
     *
     * @param host    the server's host
     * @param port    the server's port
     * @param timeout the connect and read timeout
     * @return the connected client; close it when done
     * @throws UncheckedIOException if the connection cannot be established within the timeout
     */
    public static RespClient connect(String host, int port, Duration timeout) {
        Objects.requireNonNull(host, "host");
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(toMillis(timeout));
            socket.connect(new InetSocketAddress(host, port), toMillis(timeout));
            return new RespClient(socket);
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException("cannot connect to " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * Connects to {@code host:port} over TLS, trusting what {@code tls} trusts and checking that the
     * server certificate names {@code host}. The handshake is done before this returns; {@code timeout}
     * bounds the connect, the handshake and every reply.
     *
     * @param host    the server's host, which its certificate must name
     * @param port    the server's port
     * @param timeout the connect, handshake and read timeout
     * @param tls     what to trust
     * @return the connected client; close it when done
     * @throws UncheckedIOException if the connection or the TLS handshake fails
     */
    public static RespClient connect(String host, int port, Duration timeout, SSLContext tls) {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(tls, "tls");
        Socket plain = new Socket();
        SSLSocket socket = null;
        try {
            plain.setTcpNoDelay(true);
            plain.setSoTimeout(toMillis(timeout));
            plain.connect(new InetSocketAddress(host, port), toMillis(timeout));
            socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, host, port, true);
            SSLParameters params = socket.getSSLParameters();
            params.setEndpointIdentificationAlgorithm("HTTPS");
            socket.setSSLParameters(params);
            socket.startHandshake();
            return new RespClient(socket);
        } catch (IOException e) {
            closeQuietly(socket);
            closeQuietly(plain);
            throw new UncheckedIOException("cannot connect over TLS to " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * Connects to {@code server} (over TLS if it was built with {@link RedisServerBuilder#tls()}),
     * authenticating with its {@code requirepass} password if one is set, or as the test kit's administrator
     * when its default user is restricted.
     *
     * @param server the server to connect to
     * @return the connected client; close it when done
     */
    public static RespClient connect(RedisServer server) {
        RespClient client = server.isTls()
                ? connect(server.host(), server.port(), DEFAULT_TIMEOUT, server.tlsCertificates().adminSslContext())
                : connect(server.host(), server.port());
        try {
            server.authenticate(client);
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
        return client;
    }

    /**
     * Changes the read timeout used for subsequent replies.
     *
     * @param timeout the read timeout
     * @return this client
     */
    public RespClient timeout(Duration timeout) {
        try {
            socket.setSoTimeout(toMillis(timeout));
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /**
     * Sends {@code AUTH password} and returns the reply. Throws {@link RespException} on rejection.
     *
     * @param password the password
     * @return the reply, {@code OK}
     */
    public Object auth(String password) {
        return command("AUTH", password);
    }

    /**
     * Sends {@code AUTH user password} (ACL user) and returns the reply.
     *
     * @param user     the ACL user
     * @param password the user's password
     * @return the reply, {@code OK}
     */
    public Object auth(String user, String password) {
        return command("AUTH", user, password);
    }

    /**
     * Sends one command and blocks until its reply is read (at most the read timeout).
     *
     * @param args the command and its arguments
     * @return the decoded reply
     * @throws RespException if the server replies with an error
     * @throws UncheckedIOException on timeout, reset or end of stream
     */
    public Object command(String... args) {
        send(args);
        return read();
    }

    /**
     * Writes one command without waiting for its reply; use {@link #read()} to collect replies in
     * order. Several {@code send} calls before reading form a pipeline.
     *
     * @param args the command and its arguments
     */
    public void send(String... args) {
        byte[][] raw = new byte[args.length][];
        for (int i = 0; i < args.length; i++) {
            raw[i] = args[i].getBytes(StandardCharsets.UTF_8);
        }
        sendBinary(raw);
    }

    /**
     * Like {@link #command(String...)} with binary-safe arguments and replies: bulk strings arrive as
     * {@code byte[]} exactly as the server sent them (simple strings, integers and arrays as usual), for
     * tests of payloads that are not UTF-8.
     *
     * @param args the command and its arguments, as bytes
     * @return the decoded reply
     */
    public Object commandBinary(byte[]... args) {
        sendBinary(args);
        Object reply;
        try {
            reply = readReply(true);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read reply: " + e, e);
        }
        if (reply instanceof RespException error) {
            throw new RespException(error.getMessage());
        }
        return reply;
    }

    private void sendBinary(byte[]... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("a command needs at least one argument (its name)");
        }
        ByteArrayOutputStream buf = new ByteArrayOutputStream(64);
        writeAscii(buf, "*" + args.length + "\r\n");
        for (byte[] bytes : args) {
            writeAscii(buf, "$" + bytes.length + "\r\n");
            buf.writeBytes(bytes);
            writeAscii(buf, "\r\n");
        }
        try {
            out.write(buf.toByteArray());
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send " + new String(args[0], StandardCharsets.UTF_8) + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Blocks until the next reply is read (at most the read timeout).
     *
     * @return the decoded reply
     * @throws RespException if the reply is an error
     * @throws UncheckedIOException on timeout, reset or end of stream
     */
    public Object read() {
        Object reply;
        try {
            reply = readReply(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read reply: " + e, e);
        }
        if (reply instanceof RespException error) {
            throw new RespException(error.getMessage());
        }
        return reply;
    }

    /**
     * The underlying socket, e.g. to inspect its state in tests.
     *
     * @return the socket
     */
    public Socket socket() {
        return socket;
    }

    /** Closes the socket; never throws. */
    @Override
    public void close() {
        closeQuietly(socket);
    }

    private Object readReply(boolean binary) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by peer");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new RespException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len);
                if (data.length < len) {
                    throw new EOFException("connection closed inside a bulk string");
                }
                expectCrlf();
                return binary ? data : new String(data, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(readReply(binary));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type byte '" + (char) type + "' (only RESP2 is supported)");
        }
    }

    private String readLine() throws IOException {
        return Resp.line(in);
    }

    private void expectCrlf() throws IOException {
        if (in.read() != '\r' || in.read() != '\n') {
            throw new IOException("malformed bulk string: missing CRLF terminator");
        }
    }

    private static void writeAscii(ByteArrayOutputStream buf, String s) {
        buf.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    static int toMillis(Duration d) {
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, got " + d);
        }
        return (int) Math.min(Integer.MAX_VALUE, Math.max(1, d.toMillis()));
    }

    static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
