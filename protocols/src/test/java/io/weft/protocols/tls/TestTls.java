package io.weft.protocols.tls;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.weft.testsupport.TestPki;
import io.weft.transport.TlsSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one test CA of this JVM's TLS tests, and what is made from it once: a certificate for
 * {@code localhost}, the client settings that trust the CA, and GreenMail's key store. One per
 * JVM because GreenMail reads its TLS key store once, from system properties, on first use.
 */
final class TestTls {
  private static final TestPki PKI = TestPki.create("Weft protocols test CA");
  private static final TestPki.Issued LOCALHOST = PKI.issue(TestPki.localhost());
  private static final TlsSettings TRUSTING = TlsSettings.builder().context(PKI.clientContext()).build();

  static {
    try {
      Path store = Files.createTempFile("weft-greenmail-", ".p12");
      store.toFile().deleteOnExit();
      LOCALHOST.writePkcs12(store, "changeit".toCharArray());
      System.setProperty("greenmail.tls.keystore.file", store.toString());
      System.setProperty("greenmail.tls.keystore.password", "changeit");
      System.setProperty("greenmail.tls.key.password", "changeit");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private TestTls() {}

  static TestPki pki() {
    return PKI;
  }

  static TestPki.Issued localhostCertificate() {
    return LOCALHOST;
  }

  static TlsSettings trusting() {
    return TRUSTING;
  }

  /** A started GreenMail serving SMTPS on a free port with the localhost certificate. */
  static GreenMail smtpsGreenMail() {
    GreenMail greenMail = new GreenMail(ServerSetupTest.SMTPS.dynamicPort());
    greenMail.start();
    return greenMail;
  }
}
