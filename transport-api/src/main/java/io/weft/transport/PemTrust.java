package io.weft.transport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * Reads PEM certificates and PKCS#8 keys with the JDK alone, and makes the {@link SSLContext}
 * that {@link TlsSettings.Builder#trustPem} and {@link TlsSettings.Builder#clientCertificatePem}
 * describe: the twelve lines of {@code CertificateFactory}, {@code KeyStore},
 * {@code TrustManagerFactory} and {@code SSLContext} every private-CA user writes otherwise.
 */
final class PemTrust {
  private static final String KEY_BEGIN = "-----BEGIN PRIVATE KEY-----";
  private static final String KEY_END = "-----END PRIVATE KEY-----";

  private PemTrust() {}

  static List<X509Certificate> certificates(Path pem) {
    byte[] bytes = read(pem);
    try {
      List<X509Certificate> list = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(bytes))) {
        list.add((X509Certificate) c);
      }
      if (list.isEmpty()) {
        throw new IllegalArgumentException("no certificate in " + pem);
      }
      return list;
    } catch (CertificateException e) {
      throw new IllegalArgumentException("not PEM certificates: " + pem + ": " + e.getMessage(), e);
    }
  }

  /** An unencrypted PKCS#8 key ({@code BEGIN PRIVATE KEY}) of the algorithm of {@code certificate}'s key. */
  static PrivateKey privateKey(Path pem, X509Certificate certificate) {
    String text = new String(read(pem), StandardCharsets.US_ASCII);
    int begin = text.indexOf(KEY_BEGIN);
    int end = text.indexOf(KEY_END);
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException("no '" + KEY_BEGIN + "' block in " + pem
          + " (PKCS#8 keys only: convert others with 'openssl pkcs8 -topk8 -nocrypt')");
    }
    byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + KEY_BEGIN.length(), end));
    String algorithm = certificate.getPublicKey().getAlgorithm();
    try {
      return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("not a PKCS#8 " + algorithm + " key: " + pem + ": " + e.getMessage(), e);
    }
  }

  /**
   * A context trusting {@code trusted} (the JDK's trust store when null) and presenting
   * {@code key} with {@code chain} when a key is given.
   */
  static SSLContext context(List<X509Certificate> trusted, PrivateKey key, List<X509Certificate> chain) {
    try {
      TrustManager[] trustManagers = null;
      if (trusted != null) {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        int i = 0;
        for (X509Certificate c : trusted) {
          store.setCertificateEntry("trusted-" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        trustManagers = tmf.getTrustManagers();
      }
      KeyManager[] keyManagers = null;
      if (key != null) {
        char[] password = new char[0];
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("client", key, password, chain.toArray(new Certificate[0]));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(store, password);
        keyManagers = kmf.getKeyManagers();
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers, trustManagers, null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot make a TLS context: " + e.getMessage(), e);
    }
  }

  private static byte[] read(Path pem) {
    try {
      return Files.readAllBytes(pem);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + pem, e);
    }
  }
}
