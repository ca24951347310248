package io.coordis.internal.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.netty.handler.ssl.SslContextBuilder;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.Collection;
import java.util.Objects;

/**
 * How {@code rediss://} connections authenticate: the CA certificates that the server's certificate must chain to
 * (default: the JVM's trust store), an optional client certificate chain and private key (for servers with
 * {@code tls-auth-clients yes}), and whether the server's name must match its certificate (default: yes).
 * Applies to every connection of a node: commands, binary list commands, pub/sub, Sentinel and cluster nodes.
 *
 * <p>Immutable and thread-safe. Files are checked when set (exists, readable, PEM of the right kind) and read
 * again on every connect, so renewed certificates are picked up by reconnects. Neither {@link #toString()} nor
 * any message shows key material or the key's password.
 */
public final class TlsSettings {
    private static final TlsSettings DEFAULTS = new TlsSettings(null, null, null, null, true);

    private final Path trustedCertificates;
    private final Path certificateChain;
    private final Path privateKey;
    private final char[] keyPassword;
    private final boolean verifyHostname;

    private TlsSettings(Path trustedCertificates, Path certificateChain, Path privateKey, char[] keyPassword,
                        boolean verifyHostname) {
        this.trustedCertificates = trustedCertificates;
        this.certificateChain = certificateChain;
        this.privateKey = privateKey;
        this.keyPassword = keyPassword;
        this.verifyHostname = verifyHostname;
    }

    /** The JVM's trust store, no client certificate, hostname verification on. */
    public static TlsSettings defaults() {
        return DEFAULTS;
    }

    /**
     * These settings trusting the CA certificates in {@code pemFile} instead of the JVM's trust store.
     *
     * @throws IllegalArgumentException naming the file when it is missing, unreadable or holds no PEM certificate
     */
    public TlsSettings trusting(Path pemFile) {
        Objects.requireNonNull(pemFile, "CA certificate file must not be null");
        requireCertificates(pemFile, "CA certificate file");
        return new TlsSettings(pemFile, certificateChain, privateKey, keyPassword, verifyHostname);
    }

    /**
     * These settings presenting the client certificate chain in {@code chainPem} (the client's certificate first,
     * then any intermediates) with the private key in {@code keyPem}: unencrypted PKCS#8
     * ({@code BEGIN PRIVATE KEY}), or encrypted PKCS#8 ({@code BEGIN ENCRYPTED PRIVATE KEY}) with
     * {@code password} (else {@code null}). The password is copied.
     *
     * @throws IllegalArgumentException naming the file and what to do when a file is missing, unreadable, not
     *                                  PEM of the right kind, or the key is encrypted and no password was given
     */
    public TlsSettings presenting(Path chainPem, Path keyPem, char[] password) {
        Objects.requireNonNull(chainPem, "client certificate file must not be null");
        Objects.requireNonNull(keyPem, "client key file must not be null");
        requireCertificates(chainPem, "client certificate file");
        requireKey(keyPem, password != null);
        return new TlsSettings(trustedCertificates, chainPem, keyPem, password == null ? null : password.clone(),
                verifyHostname);
    }

    /**
     * These settings with hostname verification on (the default) or off. Off, any certificate signed by a
     * trusted CA is accepted whatever name it was issued for, so anyone holding such a certificate can pose as
     * the server: unsafe, for test set-ups only.
     */
    public TlsSettings verifyingHostname(boolean verify) {
        return new TlsSettings(trustedCertificates, certificateChain, privateKey, keyPassword, verify);
    }

    public boolean verifiesHostname() {
        return verifyHostname;
    }

    public boolean hasClientCertificate() {
        return certificateChain != null;
    }

    /**
     * Lettuce's TLS options for these settings, a handshake bounded by {@code handshakeTimeout}, after loading the files once so that a key that does not match
     * its certificate, or a wrong password, fails here rather than on every connect.
     *
     * @throws IllegalArgumentException naming the files (never the password)
     */
    SslOptions sslOptions(Duration handshakeTimeout) {
        SslOptions.Builder b = SslOptions.builder().jdkSslProvider().handshakeTimeout(handshakeTimeout);
        if (trustedCertificates != null) {
            b.trustManager(trustedCertificates.toFile());
        }
        if (certificateChain != null) {
            try {
                SslContextBuilder.forClient()
                        .keyManager(certificateChain.toFile(), privateKey.toFile(),
                                keyPassword == null ? null : new String(keyPassword))
                        .build();
            } catch (IOException | IllegalArgumentException e) {
                throw new IllegalArgumentException("cannot use client certificate " + certificateChain + " with key "
                        + privateKey + " (" + rootMessage(e) + "); check that the key belongs to the certificate"
                        + (keyPassword != null ? " and the password is the key's" : ""), null);
            }
            if (keyPassword == null) {
                requireMatchingKey();
            }
            b.keyManager(certificateChain.toFile(), privateKey.toFile(), keyPassword);
        }
        return b.build();
    }

    /** Fails unless the (unencrypted PKCS#8) private key signs what the chain's first certificate verifies. */
    private void requireMatchingKey() {
        try (InputStream in = Files.newInputStream(certificateChain)) {
            X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
            PublicKey publicKey = cert.getPublicKey();
            String pem = Files.readString(privateKey, StandardCharsets.ISO_8859_1);
            int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
            int end = pem.indexOf("-----END PRIVATE KEY-----");
            byte[] der = Base64.getMimeDecoder()
                    .decode(pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end));
            String algorithm = publicKey.getAlgorithm();
            PrivateKey key = KeyFactory.getInstance(algorithm)
                    .generatePrivate(new PKCS8EncodedKeySpec(der));
            String signing = switch (algorithm) {
                case "EC" -> "SHA256withECDSA";
                case "RSA" -> "SHA256withRSA";
                case "DSA" -> "SHA256withDSA";
                default -> algorithm; // EdDSA: Ed25519, Ed448
            };
            byte[] probe = "coordis key check".getBytes(StandardCharsets.US_ASCII);
            Signature signer = Signature.getInstance(signing);
            signer.initSign(key);
            signer.update(probe);
            byte[] signature = signer.sign();
            Signature verifier = Signature.getInstance(signing);
            verifier.initVerify(publicKey);
            verifier.update(probe);
            if (!verifier.verify(signature)) {
                throw new IllegalArgumentException("client key " + privateKey + " does not belong to the certificate "
                        + certificateChain + "; give the key the certificate was issued for");
            }
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            if (e instanceof IllegalArgumentException iae && iae.getMessage() != null
                    && iae.getMessage().startsWith("client key ")) {
                throw iae;
            }
            throw new IllegalArgumentException("client key " + privateKey + " does not belong to the certificate "
                    + certificateChain + " (" + rootMessage(e) + "); give the key the certificate was issued for", null);
        }
    }

    /** Applies the hostname setting to {@code uri} (and its sentinels): FULL becomes CA when verification is off. */
    void apply(RedisURI uri) {
        if (!verifyHostname && uri.getVerifyMode() == SslVerifyMode.FULL) {
            uri.setVerifyPeer(SslVerifyMode.CA);
        }
        for (RedisURI sentinel : uri.getSentinels()) {
            apply(sentinel);
        }
    }

    @Override
    public String toString() {
        return "TlsSettings[trusted=" + (trustedCertificates == null ? "JVM trust store" : trustedCertificates)
                + ", client certificate=" + (certificateChain == null ? "none" : certificateChain + " (key " + privateKey
                + (keyPassword != null ? ", with password" : "") + ")")
                + ", verify hostname=" + verifyHostname + "]";
    }

    private static String readPem(Path file, String what) {
        if (!Files.exists(file)) {
            throw new IllegalArgumentException(what + " " + file + " does not exist; give the path of a PEM file");
        }
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(what + " " + file + " is not a file; give the path of a PEM file");
        }
        if (!Files.isReadable(file)) {
            throw new IllegalArgumentException(what + " " + file + " is not readable by this process; check its "
                    + "permissions");
        }
        try {
            return Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + " " + file + ": " + e.getMessage(), null);
        }
    }

    private static void requireCertificates(Path file, String what) {
        String text = readPem(file, what);
        if (!text.contains("-----BEGIN CERTIFICATE-----")) {
            throw new IllegalArgumentException(what + " " + file + " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
                    + (text.contains("PRIVATE KEY-----") ? "; it looks like a private key, give the certificate" : "")
                    + "; convert a DER file with: openssl x509 -in FILE -out FILE.pem");
        }
        try (InputStream in = Files.newInputStream(file)) {
            Collection<? extends Certificate> certs =
                    CertificateFactory.getInstance("X.509").generateCertificates(in);
            if (certs.isEmpty() || !(certs.iterator().next() instanceof X509Certificate)) {
                throw new IllegalArgumentException(what + " " + file + " holds no X.509 certificate");
            }
        } catch (CertificateException | IOException e) {
            throw new IllegalArgumentException(what + " " + file + " is not a valid PEM certificate file ("
                    + rootMessage(e) + ")", null);
        }
    }

    private static void requireKey(Path file, boolean hasPassword) {
        String text = readPem(file, "client key file");
        if (text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")) {
            if (!hasPassword) {
                throw new IllegalArgumentException("client key file " + file + " is encrypted; give its password, or "
                        + "decrypt it with: openssl pkcs8 -in KEY -out KEY.pem");
            }
            return;
        }
        if (text.contains("-----BEGIN PRIVATE KEY-----")) {
            return;
        }
        if (text.contains("-----BEGIN RSA PRIVATE KEY-----") || text.contains("-----BEGIN EC PRIVATE KEY-----")) {
            throw new IllegalArgumentException("client key file " + file + " holds a traditional (PKCS#1/SEC1) key; "
                    + "convert it to PKCS#8 with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pem");
        }
        throw new IllegalArgumentException("client key file " + file + " holds no PEM private key "
                + "(-----BEGIN PRIVATE KEY-----)"
                + (text.contains("-----BEGIN CERTIFICATE-----") ? "; it looks like a certificate, give the key" : ""));
    }

    private static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String m = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }
}
