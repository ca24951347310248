package io.coordis.testkit;

import io.coordis.redis.runner.ProcessSupport;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throw-away certificate authority and a server certificate for {@code 127.0.0.1} and
 * {@code localhost}, as PEM files, for TLS test servers ({@link RedisServerBuilder#tls()}).
 *
 * <p>{@link #get()} generates them once per JVM in a temporary directory (deleted when the JVM exits)
 * with the {@code openssl} command line if it is on the {@code PATH}, otherwise with the JDK's
 * {@code keytool}; neither needs the network. Keys are EC P-256 (unencrypted PKCS#8), valid for ten years.
 *
 * <p>For client-certificate and failure tests, {@link #client()}, {@link #clientOfOtherCa()},
 * {@link #expiredClient()}, {@link #serverOfOtherCa()} and {@link #serverForIpOnly()} are generated on first use
 * of any of them; they need {@code openssl} on the {@code PATH}.
 */
public final class TestCertificates {

    /** How the files were made. */
    public enum Generator {
        /** {@code openssl}, which makes every certificate here. */
        OPENSSL,
        /** The JDK's {@code keytool}, when {@code openssl} is missing: the CA and the server certificate only. */
        KEYTOOL
    }

    private static final Logger log = LoggerFactory.getLogger(TestCertificates.class);
    private static volatile TestCertificates shared;

    private final Path dir;
    private final Generator generator;
    private volatile SSLContext sslContext;
    private volatile SSLContext adminContext;
    private volatile boolean extras;

    /** A PEM certificate (chain) file and the PEM file of its private key. */
    public record KeyPair(Path certFile, Path keyFile) {
    }

    private TestCertificates(Path dir, Generator generator) {
        this.dir = dir;
        this.generator = generator;
    }

    /**
     * The JVM-wide certificates, generated on first use (blocks for a second or so then).
     *
     * @return the certificates
     * @throws IllegalStateException if neither openssl nor keytool can produce them
     */
    public static TestCertificates get() {
        TestCertificates c = shared;
        if (c != null) {
            return c;
        }
        synchronized (TestCertificates.class) {
            if (shared == null) {
                Path dir;
                try {
                    dir = Files.createTempDirectory("coordis-tls-");
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create a temporary directory for TLS certificates", e);
                }
                Runtime.getRuntime().addShutdownHook(new Thread(() -> ProcessSupport.deleteRecursively(dir),
                        "coordis-tls-cleanup"));
                shared = generate(dir, ProcessSupport.findOnPath("openssl") != null ? Generator.OPENSSL : Generator.KEYTOOL);
            }
            return shared;
        }
    }

    /** Generates into {@code dir} (which must exist) with the given tool. */
    static TestCertificates generate(Path dir, Generator generator) {
        long start = System.nanoTime();
        try {
            if (generator == Generator.OPENSSL) {
                CertificateFiles.openssl(dir);
            } else {
                CertificateFiles.keytool(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot generate TLS test certificates in " + dir + " with " + generator, e);
        }
        TestCertificates certs = new TestCertificates(dir, generator);
        certs.sslContext();
        log.debug("generated TLS test certificates in {} with {} ({} ms)", dir, generator,
                (System.nanoTime() - start) / 1_000_000);
        return certs;
    }

    /**
     * PEM file of the CA certificate: what a client must trust.
     *
     * @return the file
     */
    public Path caFile() {
        return dir.resolve("ca.crt");
    }

    /**
     * PEM file of the server certificate (signed by the CA, SAN {@code IP:127.0.0.1, DNS:localhost}).
     *
     * @return the file
     */
    public Path certFile() {
        return dir.resolve("server.crt");
    }

    /**
     * PEM file of the server's private key (unencrypted PKCS#8).
     *
     * @return the file
     */
    public Path keyFile() {
        return dir.resolve("server.key");
    }

    /**
     * The server certificate and key of {@link #certFile()} and {@link #keyFile()}.
     *
     * @return the certificate and key
     */
    public KeyPair server() {
        return new KeyPair(certFile(), keyFile());
    }

    /**
     * A client certificate (CN {@code coordis-client}, extended key usage clientAuth) signed by the test CA.
     *
     * @return the certificate and key
     */
    public KeyPair client() {
        return extra("client");
    }

    /**
     * A client certificate signed by a second, unrelated CA ({@link #otherCaFile()}): servers must refuse it.
     *
     * @return the certificate and key
     */
    public KeyPair clientOfOtherCa() {
        return extra("other-client");
    }

    /**
     * A client certificate signed by the test CA that expired a day before it was made.
     *
     * @return the certificate and key
     */
    public KeyPair expiredClient() {
        return extra("expired-client");
    }

    /**
     * A server certificate for {@code 127.0.0.1} and {@code localhost} signed by the second CA.
     *
     * @return the certificate and key
     */
    public KeyPair serverOfOtherCa() {
        return extra("other-server");
    }

    /**
     * A server certificate signed by the test CA whose only subject alternative name is {@code IP:127.0.0.1}:
     * a client connecting by the name {@code localhost} must refuse it.
     *
     * @return the certificate and key
     */
    public KeyPair serverForIpOnly() {
        return extra("ip-server");
    }

    /**
     * PEM file of the second, unrelated CA's certificate.
     *
     * @return the file
     */
    public Path otherCaFile() {
        ensureExtras();
        return dir.resolve("other-ca.crt");
    }

    private KeyPair extra(String name) {
        ensureExtras();
        return new KeyPair(dir.resolve(name + ".crt"), dir.resolve(name + ".key"));
    }

    private void ensureExtras() {
        if (extras) {
            return;
        }
        synchronized (this) {
            if (extras) {
                return;
            }
            if (ProcessSupport.findOnPath("openssl") == null) {
                throw new IllegalStateException("client and failure-case TLS test certificates need the openssl command "
                        + "on the PATH (install the openssl package)");
            }
            long start = System.nanoTime();
            try {
                CertificateFiles.opensslExtras(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot generate TLS test certificates in " + dir, e);
            }
            adminContext = null;
            extras = true;
            log.debug("generated client and failure-case TLS test certificates in {} ({} ms)", dir,
                    (System.nanoTime() - start) / 1_000_000);
        }
    }

    /**
     * The context the test kit itself uses to administer TLS servers: trusts the test CA (and the second CA once
     * generated) and presents {@link #client()} once generated, so it reaches servers that require client
     * certificates or use {@link #serverOfOtherCa()}.
     */
    SSLContext adminSslContext() {
        if (!extras) {
            return sslContext();
        }
        SSLContext ctx = adminContext;
        if (ctx == null) {
            ctx = context(List.of(caFile(), otherCaFile()), client());
            adminContext = ctx;
        }
        return ctx;
    }

    private static SSLContext context(List<Path> caPems, KeyPair clientPair) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int i = 0;
            for (Path caPem : caPems) {
                try (InputStream in = Files.newInputStream(caPem)) {
                    for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                        trust.setCertificateEntry("ca-" + i++, cert);
                    }
                }
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            Certificate[] chain;
            try (InputStream in = Files.newInputStream(clientPair.certFile())) {
                chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(new Certificate[0]);
            }
            String pem = Files.readString(clientPair.keyFile(), StandardCharsets.US_ASCII);
            String base64 = pem.replaceAll("-----(BEGIN|END) PRIVATE KEY-----", "").replaceAll("\\s", "");
            PrivateKey key = KeyFactory.getInstance("EC")
                    .generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
            char[] pw = "test".toCharArray();
            keys.setKeyEntry("client", key, pw, chain);
            javax.net.ssl.KeyManagerFactory kmf =
                    javax.net.ssl.KeyManagerFactory.getInstance(javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, pw);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read TLS test certificates " + caPems + ", " + clientPair, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a TLS context from " + caPems + ", " + clientPair + ": " + e, e);
        }
    }

    /**
     * The directory holding the files.
     *
     * @return the directory
     */
    public Path dir() {
        return dir;
    }

    /**
     * The tool that made the files.
     *
     * @return the tool
     */
    public Generator generator() {
        return generator;
    }

    /**
     * A TLS client context that trusts exactly the test CA (built from {@link #caFile()}).
     *
     * @return the context
     */
    public SSLContext sslContext() {
        SSLContext ctx = sslContext;
        if (ctx == null) {
            ctx = trusting(caFile());
            sslContext = ctx;
        }
        return ctx;
    }

    /**
     * A TLS client context trusting the certificates in a PEM file.
     *
     * @param caPem a PEM file of CA certificates
     * @return the context
     */
    public static SSLContext trusting(Path caPem) {
        try (InputStream in = Files.newInputStream(caPem)) {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int i = 0;
            for (Certificate cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + i++, cert);
            }
            if (i == 0) {
                throw new IllegalStateException("no certificate in " + caPem);
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(null, tmf.getTrustManagers(), null);
            return ctx;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read CA certificate " + caPem, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot build a TLS context trusting " + caPem + ": " + e, e);
        }
    }

    @Override
    public String toString() {
        return "TestCertificates[" + dir + " (" + generator + ")]";
    }
}
