package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.testsupport.StartTlsSmtpServer;
import io.weft.testsupport.TestPki;
import io.weft.testsupport.TlsEchoServer;
import io.weft.transport.Connector;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.Timeout;
import io.weft.transport.TlsHandshakeException;
import io.weft.transport.TlsRequiredException;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.TransportTimeoutException;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.netty.NettyConnector;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TLS on every transport, implicit and STARTTLS, against real TLS peers (a JDK
 * {@code SSLServerSocket} presenting certificates from a CA made when the test starts): what a
 * good handshake gives, and that each bad one ends the session with the same exception type and
 * the same kind of message on every transport (the socket, MINA's and Netty's). Run on plain threads; the continuing transport's
 * waits block here on the code paths they suspend on in a continuation.
 */
class TlsTransportTest {
  private static final Timeout TIMEOUT = Timeout.of(10, TimeUnit.SECONDS);

  enum Kind {
    SOCKET(tls -> tls == null ? new SocketConnector() : new SocketConnector(tls)),
    MINA(tls -> tls == null ? MinaConnector.tcp() : MinaConnector.builder().tls(tls).tcp()),
    SUSPENDING_MINA(tls -> tls == null ? SuspendingMinaConnector.tcp() : SuspendingMinaConnector.builder().tls(tls).tcp()),
    NETTY(tls -> tls == null ? NettyConnector.tcp() : NettyConnector.builder().tls(tls).tcp()),
    SUSPENDING_NETTY(tls -> tls == null ? SuspendingNettyConnector.tcp() : SuspendingNettyConnector.builder().tls(tls).tcp());

    final Function<TlsSettings, Connector> connectors;

    Kind(Function<TlsSettings, Connector> connectors) {
      this.connectors = connectors;
    }
  }

  /** One way of reading, each going through its own poll of the inbound buffer. */
  enum Read {
    LINE(t -> t.readLine(100)),
    BYTES(t -> t.read(new byte[100], 0, 100)),
    FULLY(t -> t.readBytes(2));

    final ReadCall call;

    Read(ReadCall call) {
      this.call = call;
    }
  }

  interface ReadCall {
    Object read(Transport transport) throws IOException;
  }

  /** The first bytes of a TLS alert record, each with one byte the shape does not allow. */
  private static final byte[][] NOT_ALERTS = {
      {0x16, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a},
      {0x15, 0x03, 0x05, 0x00, 0x02, 0x02, 0x0a},
      {0x15, 0x03, 0x03, 0x00, 0x03, 0x02, 0x0a},
      {0x15, 0x03, 0x03, 0x00, 0x02, 0x03, 0x0a},
  };
  private static final byte[] ALERT = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x0a};

  private static TestPki pki;
  private static TestPki otherPki;
  private static TlsSettings trustingPki;
  private static TlsEchoServer good;
  private static TlsEchoServer expired;
  private static TlsEchoServer wrongHost;
  private static TlsEchoServer unknownCa;

  @BeforeAll
  static void servers() throws IOException {
    pki = TestPki.create("Weft test CA");
    otherPki = TestPki.create("Some other CA");
    trustingPki = TlsSettings.builder().context(pki.clientContext()).build();
    good = TlsEchoServer.start(pki.issue(TestPki.localhost()).serverContext());
    expired = TlsEchoServer.start(pki.issue(TestPki.expiredLocalhost()).serverContext());
    wrongHost = TlsEchoServer.start(pki.issue(TestPki.otherHost()).serverContext());
    unknownCa = TlsEchoServer.start(otherPki.issue(TestPki.localhost()).serverContext());
  }

  @AfterAll
  static void stop() {
    for (TlsEchoServer server : new TlsEchoServer[] {good, expired, wrongHost, unknownCa}) {
      if (server != null) {
        server.close();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void implicitTlsCarriesLinesAndReportsTheNegotiatedSession(Kind kind) throws Exception {
    try (Connector connector = kind.connectors.apply(trustingPki);
         Transport transport = connector.connect(good.address(), TIMEOUT)) {
      transport.writeLine("hello over tls");
      transport.flush();
      assertEquals("hello over tls", transport.readLineStrict(100));
      SSLSession session = transport.tlsSession().orElseThrow();
      assertTrue(session.getProtocol().startsWith("TLSv1."), session.getProtocol());
      X509Certificate peer = (X509Certificate) session.getPeerCertificates()[0];
      assertEquals("CN=localhost", peer.getSubjectX500Principal().getName());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPlaintextTransportHasNoTlsSession(Kind kind) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send("hi\r\n"), Delivery.WHOLE);
         Connector connector = kind.connectors.apply(null);
         Transport transport = connector.connect(server.address(), TIMEOUT)) {
      assertEquals("hi", transport.readLineStrict(10));
      assertFalse(transport.tlsSession().isPresent());
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aCertificateFromAnUnknownCaFailsTheHandshake(Kind kind) {
    assertHandshakeFails(kind, trustingPki, unknownCa.address(), "the server's certificate is not issued by a trusted CA");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aCertificateForAnotherHostFailsTheHandshake(Kind kind) {
    assertHandshakeFails(kind, trustingPki, wrongHost.address(), "the server's certificate does not name the host");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anExpiredCertificateFailsTheHandshake(Kind kind) {
    assertHandshakeFails(kind, trustingPki, expired.address(), "the server's certificate has expired");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPlaintextServerOnATlsPortFailsTheHandshake(Kind kind) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(
        ScriptedServer.script().send("220 plain smtp here\r\n").readLine(), Delivery.WHOLE)) {
      assertHandshakeFails(kind, trustingPki, server.address(), "the peer does not speak TLS");
    }
  }

  /** Client settings that leave nothing to negotiate: the JDK disables these by default. */
  enum Unusable {
    TLS_1_1(b -> b.protocols("TLSv1.1")),
    SSL_3(b -> b.protocols("SSLv3")),
    ANON_SUITE(b -> b.protocols("TLSv1.2").cipherSuites("TLS_DH_anon_WITH_AES_128_CBC_SHA"));

    final java.util.function.UnaryOperator<TlsSettings.Builder> settings;

    Unusable(java.util.function.UnaryOperator<TlsSettings.Builder> settings) {
      this.settings = settings;
    }
  }

  @ParameterizedTest
  @org.junit.jupiter.params.provider.MethodSource("kindsAndUnusableSettings")
  void settingsThatLeaveNothingToNegotiateFailTheHandshakeNamingHostAndPort(Kind kind, Unusable unusable) {
    TlsSettings tls = unusable.settings.apply(TlsSettings.builder().context(pki.clientContext())).build();
    assertHandshakeFails(kind, tls, good.address(), "no protocol and cipher suite that the settings allow can be used");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aFatalAlertAfterTheHandshakeIsATlsAlertExceptionNamingPeerAndAlert(Kind kind) throws Exception {
    TlsSettings tls13 = TlsSettings.builder().context(pki.clientContext()).protocols("TLSv1.3").build();
    try (TlsEchoServer mtls = TlsEchoServer.startRequiringClientCertificates(pki.issue(TestPki.localhost()).serverContext());
         Connector connector = kind.connectors.apply(tls13)) {
      // TLS 1.3: the client's side of the handshake ends with its Finished, before the server
      // has looked at the (empty) certificate it sent; the server's refusal comes as an alert.
      // Only a read: a write racing the alert may meet the server's close first (Broken pipe).
      Transport transport = connector.connect(mtls.address(), TIMEOUT);
      io.weft.transport.TlsAlertException e = assertThrows(io.weft.transport.TlsAlertException.class,
          () -> transport.readLine(100));
      assertEquals("the peer at localhost:" + mtls.address().getPort()
          + " sent a fatal TLS alert after the handshake: " + e.alert(), e.getMessage().substring(0, e.getMessage().indexOf(" (")));
      // JDK 17's server sends bad_certificate; later JDKs certificate_required (RFC 8446).
      assertTrue(e.alert().equals("bad_certificate") || e.alert().equals("certificate_required"), e.alert());
      assertThrows(IOException.class, () -> transport.readLine(100));
      transport.close();
    }
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> kindsAndUnusableSettings() {
    return java.util.Arrays.stream(Kind.values()).flatMap(kind -> java.util.Arrays.stream(Unusable.values())
        .map(unusable -> org.junit.jupiter.params.provider.Arguments.of(kind, unusable)));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerThatClosesDuringTheHandshakeFailsIt(Kind kind) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().skipBytes(5).close(), Delivery.WHOLE)) {
      assertHandshakeFails(kind, trustingPki, server.address(), "the peer closed the connection during the handshake");
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aServerThatNeverAnswersTheHelloTimesTheHandshakeOut(Kind kind) throws Exception {
    TlsSettings quick = TlsSettings.builder().context(pki.clientContext())
        .handshakeTimeout(300, TimeUnit.MILLISECONDS).build();
    try (ScriptedServer server = ScriptedServer.start(
        ScriptedServer.script().stall(Duration.ofSeconds(30)), Delivery.WHOLE);
         Connector connector = kind.connectors.apply(quick)) {
      TransportTimeoutException e = assertThrows(TransportTimeoutException.class,
          () -> connector.connect(server.address(), TIMEOUT));
      assertEquals("TLS handshake with localhost:" + server.address().getPort() + " timed out after 300 ms",
          e.getMessage());
      assertNoTransportLeft(connector);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void serverNameVerifiesTheCertificateWhenConnectingByIpAddress(Kind kind) throws Exception {
    InetSocketAddress byIp = new InetSocketAddress(
        InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), wrongHost.address().getPort());
    assertEquals("127.0.0.1", byIp.getHostString());
    TlsSettings named = TlsSettings.builder().context(pki.clientContext()).serverName("wrong.example").build();
    try (Connector connector = kind.connectors.apply(named);
         Transport transport = connector.connect(byIp, TIMEOUT)) {
      transport.writeLine("by ip");
      transport.flush();
      assertEquals("by ip", transport.readLineStrict(100));
    }
    assertHandshakeFails(kind, trustingPki, byIp, "the server's certificate does not name the host");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void onlyTheLoudOptionTrustsAnExpiredCertificate(Kind kind) throws Exception {
    TlsSettings insecure = TlsSettings.builder().insecureTrustAllCertificatesAndHostnames().build();
    try (Connector connector = kind.connectors.apply(insecure);
         Transport transport = connector.connect(expired.address(), TIMEOUT)) {
      transport.writeLine("anyone could be reading this");
      transport.flush();
      assertEquals("anyone could be reading this", transport.readLineStrict(100));
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void recordsLargerThanTheInboundLimitArriveWhole(Kind kind) throws Exception {
    Function<TlsSettings, Connector> small = kind == Kind.MINA
        ? tls -> MinaConnector.builder().inboundBufferLimit(1024).tls(tls).tcp()
        : kind == Kind.SUSPENDING_MINA
            ? tls -> SuspendingMinaConnector.builder().inboundBufferLimit(1024).tls(tls).tcp()
            : kind == Kind.NETTY
                ? tls -> NettyConnector.builder().inboundBufferLimit(1024).tls(tls).tcp()
                : kind == Kind.SUSPENDING_NETTY
                    ? tls -> SuspendingNettyConnector.builder().inboundBufferLimit(1024).tls(tls).tcp()
                    : kind.connectors;
    try (Connector connector = small.apply(trustingPki);
         Transport transport = connector.connect(good.address(), TIMEOUT)) {
      for (int size : new int[] {100_000, 300_000}) {
        transport.writeLine("BIG " + size);
        transport.flush();
        String line = transport.readLineStrict(size);
        assertEquals(size, line.length());
        assertTrue(line.chars().allMatch(c -> c == 'x'));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void startTlsUpgradesAPlaintextConnectionInPlace(Kind kind) throws Exception {
    try (StartTlsSmtpServer smtp = StartTlsSmtpServer.start(pki.issue(TestPki.localhost()).serverContext());
         Connector connector = kind.connectors.apply(null);
         Transport transport = connector.connect(smtp.address(), TIMEOUT)) {
      assertTrue(transport.readLineStrict(200).startsWith("220 "));
      transport.writeLine("EHLO client");
      transport.flush();
      assertEquals("250-localhost", transport.readLineStrict(200));
      assertEquals("250-8BITMIME", transport.readLineStrict(200));
      assertEquals("250 STARTTLS", transport.readLineStrict(200));
      transport.writeLine("STARTTLS");
      transport.flush();
      assertTrue(transport.readLineStrict(200).startsWith("220 "));
      assertFalse(transport.tlsSession().isPresent());

      transport.startTls(trustingPki);

      assertTrue(transport.tlsSession().isPresent());
      transport.writeLine("EHLO client");
      transport.flush();
      assertEquals("250-localhost", transport.readLineStrict(200));
      assertEquals("250 8BITMIME", transport.readLineStrict(200));
      assertEquals(1, smtp.handshakes());
      assertThrows(IllegalStateException.class, () -> transport.startTls(trustingPki));
    }
  }

  static Stream<Arguments> kindsAndInjections() {
    return Stream.of(Kind.values()).flatMap(k -> Stream.of(Arguments.of(k, false), Arguments.of(k, true)));
  }

  /**
   * Plaintext the server sent after its reply to STARTTLS (the attacker's, CVE-2011-0411) is refused,
   * not fed to the handshake or read later. With {@code thenClosed} the attacker closes after it: still
   * an injection on every transport. A blocking socket learns of the close only by reading; the
   * event-driven ones usually have it by the time {@code startTls} runs, and must not report it ahead
   * of the plaintext they hold.
   */
  @ParameterizedTest(name = "{0} closed since: {1}")
  @MethodSource("kindsAndInjections")
  void startTlsRefusesPlaintextBufferedPastTheUpgradePoint(Kind kind, boolean thenClosed) throws Exception {
    StartTlsSmtpServer started = StartTlsSmtpServer.start(pki.issue(TestPki.localhost()).serverContext());
    try (StartTlsSmtpServer smtp = thenClosed ? started.injectAndCloseAfterStartTls() : started.injectAfterStartTls();
         Connector connector = kind.connectors.apply(null);
         Transport transport = connector.connect(smtp.address(), TIMEOUT)) {
      transport.readLineStrict(200);
      transport.writeLine("STARTTLS");
      transport.flush();
      assertEquals("220 ready", transport.readLineStrict(200));
      StartTlsInjectionException e = assertThrows(StartTlsInjectionException.class,
          () -> transport.startTls(trustingPki));
      assertTrue(e.getMessage().contains("\"250 injected\\r\\n\""), e.getMessage());
      assertFalse(transport.isOpen());
      assertThrows(TransportClosedException.class, () -> transport.readLine(10));
      assertEquals(0, smtp.handshakes());
    }
  }

  static Stream<Arguments> kindsAndReads() {
    return Stream.of(Kind.values()).flatMap(k -> Stream.of(Read.values()).map(r -> Arguments.of(k, r)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("kindsAndReads")
  void aPlaintextClientOnAJdkTlsPortIsToldThePeerExpectsTls(Kind kind, Read read) throws Exception {
    try (Connector connector = kind.connectors.apply(null);
         Transport transport = connector.connect(good.address(), TIMEOUT)) {
      transport.writeLine("hello in plaintext");
      transport.flush();
      TlsRequiredException e = assertThrows(TlsRequiredException.class, () -> read.call.read(transport));
      assertEquals("the peer at " + good.address().getHostString() + ":" + good.address().getPort()
          + " answered with a fatal TLS alert (unexpected_message): it expects TLS; connect with TlsSettings"
          + " or call startTls", e.getMessage());
      assertEquals(10, e.alertDescription());
      assertFalse(transport.isOpen());
      assertNoTransportLeft(connector);
    }
  }

  /**
   * The JDK's HttpsServer changed its answer to plaintext: JDK 17's closes without a word, JDK
   * 25's sends a fatal internal_error alert first. Other JDKs are not pinned down here.
   */
  @ParameterizedTest
  @EnumSource(Kind.class)
  void aPlaintextClientOnAJdkHttpsServerGetsWhatThatJdkSends(Kind kind) throws Exception {
    int jdk = Runtime.version().feature();
    Assumptions.assumeTrue(jdk == 17 || jdk >= 25, "HttpsServer's answer to plaintext is pinned for JDK 17 and 25+");
    HttpsServer https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    https.setHttpsConfigurator(new HttpsConfigurator(pki.issue(TestPki.localhost()).serverContext()));
    https.createContext("/", exchange -> {
      exchange.sendResponseHeaders(204, -1);
      exchange.close();
    });
    https.start();
    try (Connector connector = kind.connectors.apply(null);
         Transport transport = connector.connect(https.getAddress(), TIMEOUT)) {
      transport.write("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n");
      transport.flush();
      if (jdk >= 25) {
        TlsRequiredException e = assertThrows(TlsRequiredException.class, () -> transport.readLineStrict(100));
        assertTrue(e.getMessage().contains(" answered with a fatal TLS alert (internal_error): it expects TLS"),
            e.getMessage());
      } else {
        assertThrows(EOFException.class, () -> transport.readLineStrict(100));
      }
    } finally {
      https.stop(0);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aBinaryPeerWhoseFirstBytesAreNotQuiteAnAlertIsReadAsData(Kind kind) throws Exception {
    for (byte[] first : NOT_ALERTS) {
      for (Delivery delivery : Delivery.values()) {
        try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send(first), delivery);
             Connector connector = kind.connectors.apply(null);
             Transport transport = connector.connect(server.address(), TIMEOUT)) {
          assertArrayEquals(first, transport.readBytes(first.length));
          assertTrue(transport.isOpen());
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anAlertRecordAfterTheFirstBytesIsReadAsData(Kind kind) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(
        ScriptedServer.script().send("hi\r\n").readLine().send(ALERT), Delivery.WHOLE);
         Connector connector = kind.connectors.apply(null);
         Transport transport = connector.connect(server.address(), TIMEOUT)) {
      assertEquals("hi", transport.readLineStrict(10));
      transport.writeLine("go on");
      transport.flush();
      assertArrayEquals(ALERT, transport.readBytes(ALERT.length));
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anAlertRecordOverTlsIsReadAsData(Kind kind) throws Exception {
    try (Connector connector = kind.connectors.apply(trustingPki);
         Transport transport = connector.connect(good.address(), TIMEOUT)) {
      // The echo server answers a line with the line: these bytes come back decrypted, first.
      // (A protocol_version alert's: unexpected_message's last byte would end the line.)
      byte[] protocolVersion = {0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x46};
      transport.write(protocolVersion);
      transport.writeLine("");
      transport.flush();
      assertArrayEquals(protocolVersion, transport.readBytes(protocolVersion.length));
    }
  }

  private static void assertHandshakeFails(Kind kind, TlsSettings tls, InetSocketAddress address, String reason) {
    try (Connector connector = kind.connectors.apply(tls)) {
      TlsHandshakeException e = assertThrows(TlsHandshakeException.class, () -> connector.connect(address, TIMEOUT));
      String expectedStart = "TLS handshake with " + address.getHostString() + ":" + address.getPort() + " failed: " + reason;
      assertTrue(e.getMessage().startsWith(expectedStart), e.getMessage());
      assertNoTransportLeft(connector);
    }
  }

  private static void assertNoTransportLeft(Connector connector) {
    if (connector instanceof SocketConnector) {
      assertEquals(0, ((SocketConnector) connector).openTransports().size());
    } else if (connector instanceof MinaConnector) {
      assertEquals(0, ((MinaConnector) connector).openCount());
    } else if (connector instanceof NettyConnector) {
      assertEquals(0, ((NettyConnector) connector).openCount());
    } else if (connector instanceof SuspendingNettyConnector) {
      assertEquals(0, ((SuspendingNettyConnector) connector).openCount());
    } else {
      assertEquals(0, ((SuspendingMinaConnector) connector).openCount());
    }
  }
}
