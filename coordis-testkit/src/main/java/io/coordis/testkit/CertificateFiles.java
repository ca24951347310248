package io.coordis.testkit;

import io.coordis.redis.runner.ProcessSupport;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How the PEM files of {@link TestCertificates} are made: with the {@code openssl} command line, or with the JDK's
 * {@code keytool}; neither needs the network. Keys are EC P-256 (unencrypted PKCS#8), valid for ten years. Stateless.
 */
final class CertificateFiles {
    private static final String DAYS = "3650";
    private static final String SAN = "IP:127.0.0.1,DNS:localhost";

    private CertificateFiles() {
    }

    /** The client and failure-case files beside the CA of {@link #openssl}: needs {@code openssl}. */
    static void opensslExtras(Path dir) throws IOException {
        Files.writeString(dir.resolve("client.ext"), "basicConstraints=CA:FALSE\n"
                + "keyUsage=critical,digitalSignature,keyEncipherment\n"
                + "extendedKeyUsage=clientAuth\n", StandardCharsets.US_ASCII);
        if (!Files.exists(dir.resolve("server.ext"))) {
            Files.writeString(dir.resolve("server.ext"), "basicConstraints=CA:FALSE\n"
                    + "keyUsage=critical,digitalSignature,keyEncipherment\n"
                    + "extendedKeyUsage=serverAuth,clientAuth\n"
                    + "subjectAltName=" + SAN + "\n", StandardCharsets.US_ASCII);
        }
        Files.writeString(dir.resolve("ip-server.ext"), "basicConstraints=CA:FALSE\n"
                + "keyUsage=critical,digitalSignature,keyEncipherment\n"
                + "extendedKeyUsage=serverAuth,clientAuth\n"
                + "subjectAltName=IP:127.0.0.1\n", StandardCharsets.US_ASCII);
        run(dir, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "other-ca.key", "-out", "other-ca.crt", "-days", DAYS, "-subj", "/CN=Coordis Other Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        signed(dir, "client", "/CN=coordis-client", "ca", "client.ext", DAYS);
        signed(dir, "other-client", "/CN=coordis-client", "other-ca", "client.ext", DAYS);
        // notAfter a day before notBefore: expired from the start (openssl 3.0 has no -not_after for x509 -req)
        signed(dir, "expired-client", "/CN=coordis-client", "ca", "client.ext", "-1");
        signed(dir, "other-server", "/CN=127.0.0.1", "other-ca", "server.ext", DAYS);
        signed(dir, "ip-server", "/CN=127.0.0.1", "ca", "ip-server.ext", DAYS);
    }

    private static void signed(Path dir, String name, String subject, String ca, String ext, String days)
            throws IOException {
        run(dir, "openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", name + ".key", "-out", name + ".csr", "-subj", subject);
        run(dir, "openssl", "x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
                "-set_serial", Long.toString(System.nanoTime() & Long.MAX_VALUE), "-out", name + ".crt",
                "-days", days, "-extfile", ext);
    }

    /** {@code ca.crt}, {@code server.crt} and {@code server.key} with the {@code openssl} command. */
    static void openssl(Path dir) throws IOException {
        Files.writeString(dir.resolve("server.ext"), "basicConstraints=CA:FALSE\n"
                + "keyUsage=critical,digitalSignature,keyEncipherment\n"
                + "extendedKeyUsage=serverAuth,clientAuth\n"
                + "subjectAltName=" + SAN + "\n", StandardCharsets.US_ASCII);
        run(dir, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-days", DAYS, "-subj", "/CN=Coordis Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
        run(dir, "openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
        run(dir, "openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
                "-set_serial", Long.toString(System.nanoTime() & Long.MAX_VALUE), "-out", "server.crt",
                "-days", DAYS, "-extfile", "server.ext");
    }

    /** The same files as {@link #openssl} with the JDK's {@code keytool}, converted to PEM. */
    static void keytool(Path dir) throws IOException {
        String keytool = keytoolCommand();
        String pw = "changeit";
        List<String> common = List.of("-storetype", "PKCS12", "-storepass", pw, "-keypass", pw);
        run(dir, concat(List.of(keytool, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=Coordis Test CA", "-validity", DAYS, "-ext", "bc:c", "-ext", "ku:c=keyCertSign,cRLSign",
                "-keystore", "ca.p12"), common));
        run(dir, concat(List.of(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
                "-dname", "CN=127.0.0.1", "-validity", DAYS, "-keystore", "server.p12"), common));
        run(dir, concat(List.of(keytool, "-certreq", "-alias", "server", "-keystore", "server.p12", "-file", "server.csr"),
                common));
        run(dir, concat(List.of(keytool, "-gencert", "-alias", "ca", "-keystore", "ca.p12", "-infile", "server.csr",
                "-outfile", "server.crt", "-rfc", "-validity", DAYS, "-ext", "san=ip:127.0.0.1,dns:localhost",
                "-ext", "ku:c=digitalSignature,keyEncipherment", "-ext", "eku=serverAuth,clientAuth"), common));
        run(dir, concat(List.of(keytool, "-exportcert", "-alias", "ca", "-keystore", "ca.p12", "-rfc", "-file", "ca.crt"),
                common));
        try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, pw.toCharArray());
            PrivateKey key = (PrivateKey) ks.getKey("server", pw.toCharArray());
            Files.writeString(dir.resolve("server.key"), pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot convert the keytool key store to PEM: " + e, e);
        }
        try (InputStream in = Files.newInputStream(dir.resolve("server.crt"))) {
            ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in)).checkValidity();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot convert the keytool key store to PEM: " + e, e);
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static String keytoolCommand() {
        Path inJavaHome = Paths.get(System.getProperty("java.home"), "bin", "keytool");
        if (Files.isExecutable(inJavaHome)) {
            return inJavaHome.toString();
        }
        Path onPath = ProcessSupport.findOnPath("keytool");
        if (onPath == null) {
            throw new IllegalStateException("neither openssl nor keytool found: cannot generate TLS test certificates");
        }
        return onPath.toString();
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    private static void run(Path dir, String... command) throws IOException {
        run(dir, List.of(command));
    }

    private static void run(Path dir, List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish within 60 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + command.get(0), e);
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed with exit code " + p.exitValue() + ": " + out);
        }
    }
}
