package io.weft.transport;

import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;

/**
 * The context behind {@link TlsSettings.Builder#insecureTrustAllCertificatesAndHostnames()}: it
 * accepts every certificate chain without checking it. Only for tests and for servers whose
 * identity does not matter.
 */
final class TrustAll implements X509TrustManager {
  private TrustAll() {}

  static SSLContext context() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, new TrustManager[] {new TrustAll()}, null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a TLS context", e);
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) {}

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
