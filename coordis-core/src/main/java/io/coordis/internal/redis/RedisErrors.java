package io.coordis.internal.redis;

import io.coordis.AccessDeniedException;
import io.coordis.CommandRejectedException;
import io.coordis.CoordisException;
import io.coordis.NodeUnavailableException;
import io.coordis.WrongTypeException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;

import java.io.IOException;
import java.security.cert.CertificateException;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/** Turns Lettuce's exceptions into Coordis's small family, naming the node and never a password. */
final class RedisErrors {
    private static final Pattern OUR_WRONGTYPE = Pattern.compile("WRONGTYPE key '(.*)' holds a (\\w+)");

    private RedisErrors() {
    }

    static CoordisException translate(Throwable failure, String node) {
        Throwable t = unwrap(failure);
        if (t instanceof CoordisException ce) {
            return ce;
        }
        String serverError = serverError(t);
        if (serverError != null) {
            return fromServerError(serverError, node, t);
        }
        if (t instanceof RedisCommandTimeoutException || t instanceof TimeoutException) {
            return new NodeUnavailableException(node,
                    "Redis at " + node + " did not answer in time (" + firstLine(t.getMessage())
                            + "); check that it is running and reachable", t, true);
        }
        if (causedBy(t, SSLException.class) || causedBy(t, CertificateException.class)) {
            // permanent: certificates and trust are configuration, which waiting does not mend
            return new NodeUnavailableException(node, "TLS handshake with Redis at " + node + " failed: " + describe(t)
                    + "; " + tlsAdvice(describe(t)), t, false, false);
        }
        if (t instanceof RedisConnectionException || t instanceof RedisException
                || t instanceof IOException) {
            String described = describe(t);
            // transient even when closed during every handshake: a TLS-only port does that, but so does a server
            // killed or restarting while the client connects
            return new NodeUnavailableException(node, "Redis at " + node + " is unavailable: " + described
                    + (closedDuringHandshake(described) ? "; if this port serves TLS only, use a rediss:// URL" : ""),
                    t);
        }
        return new CoordisException(node, "unexpected failure talking to Redis at " + node + ": " + describe(t), t);
    }

    /**
     * Whether the server dropped the connection before the handshake completed, as a TLS-only port does with a
     * plain client: Lettuce reports, while connecting, a reset, that the connection closed prematurely, or (when the
     * close wins the race with its own set-up) that its handshake handler was never registered.
     */
    static boolean closedDuringHandshake(String described) {
        // "Unable to connect": while connecting, not a reset of a connection in use (a server killed mid-command)
        return described.contains("Unable to connect") && (described.contains("Connection reset")
                || described.contains("RedisHandshakeHandler not registered")
                || described.contains("Connection closed prematurely"));
    }

    /**
     * Whether Lettuce reported only that the channel closed during the handshake, without the server's answer:
     * "Connection closed prematurely" (the close overtook the refusal) or "RedisHandshakeHandler not registered"
     * (the channel had closed, and its handlers were gone, before Lettuce looked for its handshake). A server
     * error among the causes decides instead.
     */
    static boolean lostHandshakeAnswer(Throwable failure) {
        return serverError(unwrap(failure)) == null && anyCause(failure, t -> t.getMessage() != null
                && (t.getMessage().contains("Connection closed prematurely")
                || t.getMessage().contains("RedisHandshakeHandler not registered")));
    }

    /**
     * Which permission a NOPERM (or Redis 7's in-script form) names: 6.2 "...to access one of the keys...",
     * "...to run the 'get' command...", "...to access one of the channels..."; 7.x "No permissions to access a
     * key/channel", "The user executing the script can't access at least one of the keys / publish to the
     * channel / run this command or subcommand".
     */
    static AccessDeniedException.Reason deniedReason(String error) {
        String e = error.toLowerCase(Locale.ROOT);
        if (e.contains("channel")) {
            return AccessDeniedException.Reason.CHANNEL;
        }
        if (e.contains(" key")) {
            return AccessDeniedException.Reason.KEY;
        }
        if (e.contains("command")) {
            return AccessDeniedException.Reason.COMMAND;
        }
        return AccessDeniedException.Reason.OTHER;
    }

    private static CoordisException fromServerError(String error, String node, Throwable cause) {
        String code = error.contains(" ") ? error.substring(0, error.indexOf(' ')) : error;
        if (error.contains("WRONGPASS") || error.contains("NOAUTH") || error.contains("invalid password")
                || error.contains("invalid username-password")
                || (error.contains("AUTH") && error.contains("without any password configured"))) {
            return new AccessDeniedException(node, AccessDeniedException.Reason.CREDENTIALS, "Redis at " + node + " refused the credentials ("
                    + firstLine(error) + "); check the user and password in the URL", cause);
        }
        if (error.contains("NOPERM") || error.contains("user executing the script can't")) {
            // the second form is how Redis 7 reports a command or key a script called that the ACL user lacks
            return new AccessDeniedException(node, deniedReason(error), "Redis at " + node
                    + " denied a command to this ACL user (" + firstLine(error)
                    + "); grant the user the commands and keys Coordis needs", cause);
        }
        if (error.contains("WRONGTYPE")) {
            Matcher m = OUR_WRONGTYPE.matcher(error);
            String key = m.find() ? m.group(1) : null;
            String type = key != null ? m.group(2) : null;
            String what = key != null ? "key '" + key + "' holds a " + type + ", not what Coordis expects"
                    : "a key holds the wrong type of value (" + firstLine(error) + ")";
            return new WrongTypeException(node, key, type, "Redis at " + node + ": " + what
                    + "; another program uses this name: choose another name or remove the key", cause);
        }
        if (error.contains("OOM")) {
            return new CommandRejectedException(node, "Redis at " + node + " is out of memory (" + firstLine(error)
                    + "); raise maxmemory or free memory", cause);
        }
        if (error.contains("READONLY")) {
            // transient: a failover made this master a replica, and the client finds the new master
            return new CommandRejectedException(node, "Redis at " + node + " is a read-only replica ("
                    + firstLine(error) + "); point Coordis at the master", cause, true);
        }
        if (code.equals("MOVED") || code.equals("ASK")) {
            return new NodeUnavailableException(node, "Redis Cluster at " + node + " is moving a slot (" + firstLine(error)
                    + "); the topology is being re-read, retry (if it persists while a slot migrates, check that the user "
                    + "may run ASKING: without it a redirected command is sent back and forth)", cause);
        }
        if (code.equals("CROSSSLOT")) {
            return new CommandRejectedException(node, "Redis Cluster at " + node + " refused keys of different hash slots in "
                    + "one command (" + firstLine(error) + "); on Redis Cluster use a name without braces, or one whose "
                    + "{hash tag} is not empty (such as {orders}:42)", cause);
        }
        if (code.equals("LOADING")) {
            return new NodeUnavailableException(node, "Redis at " + node + " is loading its dataset into memory ("
                    + firstLine(error) + "); retry once it has loaded", cause);
        }
        if (code.equals("BUSY") || code.equals("MASTERDOWN") || code.equals("CLUSTERDOWN")
                || code.equals("TRYAGAIN")) {
            return new NodeUnavailableException(node, "Redis at " + node + " cannot serve now (" + firstLine(error) + ")",
                    cause);
        }
        return new CommandRejectedException(node, "Redis at " + node + " refused the command: " + firstLine(error), cause);
    }

    /**
     * The client builder's TLS settings as the advice names them. Programs that set them under other names (the
     * CLI's options) replace these words where they report the failure, so keep them stable.
     */
    static final String CLIENT_CERTIFICATE = "the client builder's clientCertificate";
    static final String TRUSTED_CERTIFICATES = "the client builder's trustedCertificates";

    /** What to do about a failed TLS handshake, judged from its description (the JDK's words or the peer's alert). */
    static String tlsAdvice(String description) {
        String d = description.toLowerCase(Locale.ROOT);
        if (d.contains("certificate_required")) {
            return "the server requires a client certificate: give one signed by a CA the server trusts "
                    + "(" + CLIENT_CERTIFICATE + ")";
        }
        if (d.contains("certificate_expired")) {
            return "the server refused this client's certificate as expired (or not yet valid): renew it";
        }
        if (d.contains("unknown_ca") || d.contains("bad_certificate") || d.contains("decrypt_error")
                || d.contains("certificate_unknown") || d.contains("unsupported_certificate")) {
            return "the server refused this client's certificate: give one signed by a CA in the server's "
                    + "tls-ca-cert-file, whose key matches it (" + CLIENT_CERTIFICATE + ")";
        }
        if (d.contains("no name matching") || d.contains("no subject alternative") || d.contains("hostname")) {
            return "the server's certificate does not name the host in the URL: connect by a name or IP address in "
                    + "its subject alternative names, or reissue the certificate";
        }
        if (d.contains("certification path") || d.contains("unable to find valid") || d.contains("signature check")) {
            return "the server's certificate is not signed by a trusted CA: give its CA certificate "
                    + "(" + TRUSTED_CERTIFICATES + ")";
        }
        if (d.contains("expired") || d.contains("notafter") || d.contains("validity")) {
            return "the server's certificate has expired or is not yet valid: renew it (or check this machine's clock)";
        }
        return "check the server's TLS settings and the CA certificate (" + TRUSTED_CERTIFICATES + ") and "
                + "client certificate (" + CLIENT_CERTIFICATE + ") given here";
    }

    /** The server's error text if this failure is (or wraps) a server error reply. */
    private static String serverError(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof RedisCommandExecutionException && c.getMessage() != null) {
                return c.getMessage();
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return null;
    }

    private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
        return anyCause(t, type::isInstance);
    }

    /** Whether {@code t} or any of its causes matches. */
    private static boolean anyCause(Throwable t, Predicate<Throwable> test) {
        for (Throwable c = t; c != null && c.getCause() != c; c = c.getCause()) {
            if (test.test(c)) {
                return true;
            }
            for (Throwable s : c.getSuppressed()) {
                if (test.test(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    static Throwable unwrap(Throwable t) {
        Throwable cur = t;
        while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
            cur = cur.getCause();
        }
        return cur;
    }

    /** Whether the failure is a cluster redirect ({@code MOVED} or {@code ASK}) that reached us. */
    static boolean isRedirect(Throwable failure) {
        String error = serverError(unwrap(failure));
        return error != null && (error.startsWith("MOVED") || error.startsWith("ASK"));
    }

    static boolean isNoScript(Throwable failure) {
        String error = serverError(unwrap(failure));
        return error != null && error.startsWith("NOSCRIPT");
    }

    /** The failure's own words, plus its root cause's (the one that says what happened on the wire). */
    private static String describe(Throwable t) {
        String own = firstLine(t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage());
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        StringBuilder sb = new StringBuilder(own);
        String rootText = root == t || root.getMessage() == null ? null : firstLine(root.getMessage());
        if (rootText != null && !own.contains(rootText)) {
            sb.append(" (").append(rootText).append(')');
        }
        return Uris.redact(sb.toString().replace("/<unresolved>", ""));
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
