package io.weft.testsupport;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throwaway certificate authority for tests, made in memory when a test starts: no key
 * material is ever checked in. It issues server certificates (good, expired, or for another
 * host) that real servers (nginx, redis-server, a JDK {@code SSLServerSocket}) load from PEM
 * files or an {@link SSLContext}, and gives the client side a context that trusts only it.
 *
 * <p>Keys are EC P-256: cheap to make and to handshake with, and every OpenSSL build takes them.
 *
 * <pre>{@code
 * TestPki pki = TestPki.create("Weft test CA");
 * TestPki.Issued server = pki.issue(TestPki.localhost());
 * TlsSettings tls = TlsSettings.builder().context(pki.clientContext()).build();
 * }</pre>
 */
public final class TestPki {
  private static final AtomicLong SERIALS = new AtomicLong(System.currentTimeMillis());
  private static final String SIGNATURE = "SHA256withECDSA";

  private final KeyPair caKeys;
  private final X509Certificate caCertificate;

  private TestPki(KeyPair caKeys, X509Certificate caCertificate) {
    this.caKeys = caKeys;
    this.caCertificate = caCertificate;
  }

  /** A new CA named {@code CN=commonName}, valid from an hour ago for a year. */
  public static TestPki create(String commonName) {
    try {
      KeyPair keys = newKeys();
      X500Name name = new X500Name("CN=" + commonName);
      Instant now = Instant.now();
      X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, serial(),
          Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(365))), name, keys.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      builder.addExtension(Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(keys.getPublic()));
      return new TestPki(keys, sign(builder, keys.getPrivate()));
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot make a test CA", e);
    }
  }

  /** What a server certificate says: its names and validity. */
  public static final class Request {
    private final String commonName;
    private final List<String> dnsNames = new ArrayList<>();
    private final List<String> ipAddresses = new ArrayList<>();
    private Instant notBefore = Instant.now().minus(Duration.ofHours(1));
    private Instant notAfter = Instant.now().plus(Duration.ofDays(30));

    private Request(String commonName) {
      this.commonName = commonName;
    }

    /** Adds a DNS subject alternative name. */
    public Request dns(String name) {
      dnsNames.add(name);
      return this;
    }

    /** Adds an IP address subject alternative name. */
    public Request ip(String address) {
      ipAddresses.add(address);
      return this;
    }

    /** Sets the validity period. */
    public Request valid(Instant from, Instant until) {
      this.notBefore = from;
      this.notAfter = until;
      return this;
    }
  }

  /** A request with only a common name; add names with {@link Request#dns} and {@link Request#ip}. */
  public static Request request(String commonName) {
    return new Request(commonName);
  }

  /** A certificate for the loopback host: {@code localhost} and {@code 127.0.0.1}, valid now. */
  public static Request localhost() {
    return request("localhost").dns("localhost").ip("127.0.0.1");
  }

  /** A certificate for {@code localhost} that expired yesterday (valid for a day before that). */
  public static Request expiredLocalhost() {
    Instant now = Instant.now();
    return localhost().valid(now.minus(Duration.ofDays(2)), now.minus(Duration.ofDays(1)));
  }

  /** A valid certificate for another host only ({@code wrong.example}). */
  public static Request otherHost() {
    return request("wrong.example").dns("wrong.example");
  }

  /** Issues a server certificate for {@code request}, signed by this CA. */
  public Issued issue(Request request) {
    return issue(request, KeyPurposeId.id_kp_serverAuth);
  }

  /**
   * Issues a client certificate (extended key usage clientAuth) for {@code request}, signed by
   * this CA: for mutual TLS, e.g. PostgreSQL's {@code cert} authentication, which takes the user
   * from the common name.
   */
  public Issued issueClient(Request request) {
    return issue(request, KeyPurposeId.id_kp_clientAuth);
  }

  private Issued issue(Request request, KeyPurposeId purpose) {
    try {
      KeyPair keys = newKeys();
      X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(caCertificate, serial(),
          Date.from(request.notBefore), Date.from(request.notAfter), new X500Name("CN=" + request.commonName),
          keys.getPublic());
      List<GeneralName> names = new ArrayList<>();
      for (String dns : request.dnsNames) {
        names.add(new GeneralName(GeneralName.dNSName, dns));
      }
      for (String ip : request.ipAddresses) {
        names.add(new GeneralName(GeneralName.iPAddress, ip));
      }
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      if (!names.isEmpty()) {
        builder.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(names.toArray(new GeneralName[0])));
      }
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      builder.addExtension(Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCertificate));
      return new Issued(keys.getPrivate(), sign(builder, caKeys.getPrivate()), caCertificate);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot issue a test certificate", e);
    }
  }

  /** The CA's certificate. */
  public X509Certificate caCertificate() {
    return caCertificate;
  }

  /** A client context that trusts this CA and nothing else. */
  public SSLContext clientContext() {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("ca", caCertificate);
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot make a client context", e);
    }
  }

  /** The CA certificate as PEM. */
  public String caPem() {
    return pem(caCertificate);
  }

  /** A server's key and certificate, issued by a {@link TestPki}. */
  public static final class Issued {
    private final PrivateKey key;
    private final X509Certificate certificate;
    private final X509Certificate ca;

    private Issued(PrivateKey key, X509Certificate certificate, X509Certificate ca) {
      this.key = key;
      this.certificate = certificate;
      this.ca = ca;
    }

    public X509Certificate certificate() {
      return certificate;
    }

    /** A server context presenting this certificate (and its CA) for a JDK server socket. */
    public SSLContext serverContext() {
      try {
        char[] password = "test".toCharArray();
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("server", key, password, new Certificate[] {certificate, ca});
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), null, null);
        return context;
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalStateException("cannot make a server context", e);
      }
    }

    /** Writes this key and certificate chain as a PKCS#12 key store protected by {@code password}. */
    public void writePkcs12(Path file, char[] password) throws IOException {
      try {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("server", key, password, new Certificate[] {certificate, ca});
        try (java.io.OutputStream out = Files.newOutputStream(file)) {
          keys.store(out, password);
        }
      } catch (GeneralSecurityException e) {
        throw new IOException("cannot write a key store", e);
      }
    }

    /**
     * Writes {@code name.crt} (the certificate, then the CA's) and {@code name.key} (PKCS#8,
     * readable by its owner only) into {@code directory}; returns the two paths.
     */
    public PemFiles writePem(Path directory, String name) {
      try {
        Path crt = directory.resolve(name + ".crt");
        Path keyFile = directory.resolve(name + ".key");
        Files.writeString(crt, pem(certificate) + pem(ca), StandardCharsets.US_ASCII);
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
          writer.writeObject(new JcaPKCS8Generator(key, null));
        }
        Files.writeString(keyFile, out.toString(), StandardCharsets.US_ASCII);
        return new PemFiles(crt, keyFile);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** The paths of a written certificate chain and key. */
  public static final class PemFiles {
    public final Path certificate;
    public final Path key;

    PemFiles(Path certificate, Path key) {
      this.certificate = certificate;
      this.key = key;
    }
  }

  private static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static KeyPair newKeys() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static BigInteger serial() {
    return BigInteger.valueOf(SERIALS.incrementAndGet());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer)
      throws GeneralSecurityException {
    try {
      ContentSigner contentSigner = new JcaContentSignerBuilder(SIGNATURE).build(signer);
      return new JcaX509CertificateConverter().getCertificate(builder.build(contentSigner));
    } catch (org.bouncycastle.operator.OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }
}
