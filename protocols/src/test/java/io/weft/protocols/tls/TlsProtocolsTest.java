package io.weft.protocols.tls;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.util.GreenMail;
import io.weft.protocols.ModeCase;
import io.weft.protocols.RealServers;
import io.weft.protocols.SessionMode;
import io.weft.testsupport.NginxProcess;
import io.weft.testsupport.RedisServerProcess;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.testsupport.StartTlsSmtpServer;
import io.weft.testsupport.TestPki;
import io.weft.testsupport.TlsEchoServer;
import io.weft.transport.StartTlsInjectionException;
import io.weft.transport.Timeout;
import io.weft.transport.TlsHandshakeException;
import io.weft.transport.TlsRequiredException;
import io.weft.transport.TlsSettings;
import io.weft.transport.TransportTimeoutException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The protocol clients over TLS against real TLS servers, in every mode ({@link ModeCase}, one
 * invocation of the class each; VIRTUAL_THREADS skipped before JDK 21): HTTPS from
 * nginx ({@code listen ... ssl}) with SNI and the right Host, Redis from
 * {@code redis-server --tls-port}, SMTPS from GreenMail, STARTTLS from a scripted SMTP server
 * that upgrades with {@code SSLSocket}; the STARTTLS injection refused; and each bad handshake
 * (unknown CA, another host's certificate, an expired one, a plaintext server on a TLS port, a
 * server that never answers) failing the session with the same exception type in every mode;
 * and what a plaintext client meets on a TLS port: the JDK's alert, recognised as
 * {@link TlsRequiredException}; redis-server's reset; GreenMail's silence.
 * Certificates come from a CA made when the tests start ({@link TestTls}).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("modes")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TlsProtocolsTest {
  private static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);

  /** Every mode, with its concurrent HTTPS sessions against nginx. */
  static Stream<ModeCase> modes() {
    return ModeCase.all(20, 200, 1000, 1000);
  }

  @Parameter
  ModeCase modeCase;
  private SessionMode plain;
  private SessionMode tls;
  private NginxProcess nginx;

  /** Opens the mode of this invocation of the class, plaintext and over TLS. */
  @BeforeParameterizedClassInvocation
  void openMode() {
    plain = modeCase.factory().get()
        .instrumenting("io.weft.protocols.http", "io.weft.protocols.redis", "io.weft.protocols.smtp");
    tls = plain.tls(TestTls.trusting());
  }

  @BeforeEach
  void modeRunsOnThisJdk() {
    Assumptions.assumeTrue(plain.available(), plain::unavailableReason);
  }

  @AfterParameterizedClassInvocation
  void closeMode() {
    plain.close();
    tls.close();
  }

  @AfterAll
  void stopServers() {
    if (nginx != null) {
      nginx.close();
    }
  }

  private NginxProcess nginx() throws IOException {
    if (nginx == null) {
      Path binary = RealServers.require(NginxProcess.BINARY, NginxProcess.DEBIAN_PACKAGE);
      String template;
      try (InputStream in = TlsProtocolsTest.class.getResourceAsStream("/nginx/nginx-tls.conf.template")) {
        template = new String(in.readAllBytes(), UTF_8);
      }
      nginx = NginxProcess.start(binary, template, Map.of(), TestTls.localhostCertificate());
    }
    return nginx;
  }

  /** nginx's address by name, so that the name is what SNI and verification use. */
  private InetSocketAddress nginxByName() throws IOException {
    return new InetSocketAddress("localhost", nginx().port());
  }

  @Test
  void httpsThroughThePlainHttpClientSendsSniAndHost() throws Exception {
    String result = tls.run(HttpsHelloSession.class, nginxByName(), TEN_SECONDS);
    assertTrue(result.startsWith("hello over tls sni=localhost host=localhost\n|TLSv1."), result);
  }

  @Test
  void manyConcurrentHttpsSessions() throws Exception {
    int sessions = modeCase.sessionsAtScale();
    SessionMode.requireFileDescriptors(2L * sessions);
    List<String> results = tls.runSessions(HttpsHelloSession.class, nginxByName(), sessions,
        Timeout.of(60, TimeUnit.SECONDS));
    assertEquals(sessions, results.size());
    for (String result : results) {
      assertTrue(result.startsWith("hello over tls sni=localhost host=localhost\n|TLSv1."), result);
    }
  }

  @Test
  void redisOverTls() throws Exception {
    Path binary = RealServers.require(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);
    try (RedisServerProcess redis = RedisServerProcess.startTls(binary, TestTls.localhostCertificate(),
        TestTls.pki().clientContext())) {
      List<String> values = tls.runSessions(RedisTlsSession.class, new InetSocketAddress("localhost", redis.port()),
          20, TEN_SECONDS);
      for (int i = 0; i < values.size(); i++) {
        assertEquals("value " + i, values.get(i));
      }
    }
  }

  @Test
  void smtpsToGreenMail() throws Exception {
    GreenMail greenMail = TestTls.smtpsGreenMail();
    try {
      int port = greenMail.getSmtps().getPort();
      assertEquals(250, (int) tls.run(SmtpsSession.class, new InetSocketAddress("localhost", port), TEN_SECONDS));
      assertEquals(1, greenMail.getReceivedMessages().length);
    } finally {
      greenMail.stop();
    }
  }

  @Test
  void startTlsUpgradesAnSmtpSessionAndSaysEhloAgain() throws Exception {
    try (StartTlsSmtpServer smtp = StartTlsSmtpServer.start(TestTls.localhostCertificate().serverContext())) {
      String result = plain.run(SmtpStartTlsSession.class, smtp.address(), TEN_SECONDS, TestTls.trusting());
      assertTrue(result.matches("TLSv1\\.[23] \\[8BITMIME, STARTTLS] \\[8BITMIME] 250"), result);
      assertEquals(List.of("Subject: over tls 0\r\n\r\nmessage 0\r\n"), smtp.tlsMessages());
    }
  }

  @Test
  void startTlsRefusesRepliesInjectedBeforeTheHandshake() throws Exception {
    try (StartTlsSmtpServer smtp = StartTlsSmtpServer.start(TestTls.localhostCertificate().serverContext())
        .injectAfterStartTls()) {
      StartTlsInjectionException e = assertThrows(StartTlsInjectionException.class,
          () -> plain.run(SmtpStartTlsSession.class, smtp.address(), TEN_SECONDS, TestTls.trusting()));
      assertTrue(e.getMessage().startsWith("refusing STARTTLS"), e.getMessage());
      assertTrue(e.getMessage().contains("\"250 injected\\r\\n\""), e.getMessage());
      assertEquals(0, smtp.handshakes());
      assertEquals(List.of(), smtp.tlsMessages());
    }
  }

  @Test
  void aCertificateFromAnUnknownCaEndsTheSession() throws Exception {
    try (SessionMode other = plain.tls(TlsSettings.builder().context(TestPki.create("Not nginx's CA").clientContext())
        .build())) {
      assertHandshakeFails(other, nginxByName(), "the server's certificate is not issued by a trusted CA");
    }
  }

  @Test
  void aCertificateForAnotherHostEndsTheSession() throws Exception {
    try (SessionMode other = plain.tls(TlsSettings.builder().context(TestTls.pki().clientContext())
        .serverName("mail.example").build())) {
      TlsHandshakeException e = assertThrows(TlsHandshakeException.class,
          () -> other.run(HttpsHelloSession.class, nginxByName(), TEN_SECONDS));
      assertTrue(e.getMessage().contains("failed: the server's certificate does not name the host"), e.getMessage());
    }
  }

  @Test
  void anExpiredCertificateEndsTheSession() throws Exception {
    try (TlsEchoServer expired = TlsEchoServer.start(
        TestTls.pki().issue(TestPki.expiredLocalhost()).serverContext())) {
      assertHandshakeFails(tls, new InetSocketAddress("localhost", expired.address().getPort()),
          "the server's certificate has expired");
    }
  }

  @Test
  void aPlaintextServerOnTheTlsPortEndsTheSession() throws Exception {
    try (ScriptedServer server = ScriptedServer.start(
        ScriptedServer.script().send("220 plaintext smtp\r\n").readLine(), Delivery.WHOLE)) {
      assertHandshakeFails(tls, new InetSocketAddress("localhost", server.address().getPort()),
          "the peer does not speak TLS");
    }
  }

  @Test
  void aPlaintextClientOnNginxsTlsPortGetsItsPlainHttpError() throws Exception {
    String result = plain.run(PlainHttpOnTlsPortSession.class, nginxByName(), TEN_SECONDS);
    assertTrue(result.startsWith("400 "), result);
    assertTrue(result.contains("The plain HTTP request was sent to HTTPS port"), result);
  }

  @Test
  void aPlaintextClientOnAJdkTlsPortIsToldThePeerExpectsTls() throws Exception {
    try (TlsEchoServer jdk = TlsEchoServer.start(TestTls.localhostCertificate().serverContext())) {
      InetSocketAddress address = new InetSocketAddress("localhost", jdk.address().getPort());
      TlsRequiredException e = assertThrows(TlsRequiredException.class,
          () -> plain.run(PlaintextRedisPingSession.class, address, TEN_SECONDS));
      assertEquals("the peer at localhost:" + address.getPort() + " answered with a fatal TLS alert"
          + " (unexpected_message): it expects TLS; connect with TlsSettings or call startTls", e.getMessage());
    }
  }

  /** redis-server's OpenSSL sends no alert: it closes, and the unread rest of the command makes that a reset. */
  @Test
  void aPlaintextClientOnRedisTlsPortIsReset() throws Exception {
    Path binary = RealServers.require(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);
    try (RedisServerProcess redis = RedisServerProcess.startTls(binary, TestTls.localhostCertificate(),
        TestTls.pki().clientContext())) {
      SocketException e = assertThrows(SocketException.class,
          () -> plain.run(PlaintextRedisPingSession.class, new InetSocketAddress("localhost", redis.port()),
              TEN_SECONDS));
      assertTrue(e.getMessage().contains("Connection reset"), e.getMessage());
    }
  }

  /** GreenMail's SMTPS waits for a ClientHello while the client waits for a greeting: a timeout. */
  @Test
  void aPlaintextClientOnGreenMailsSmtpsPortTimesOutWaitingForTheGreeting() throws Exception {
    GreenMail greenMail = TestTls.smtpsGreenMail();
    try {
      InetSocketAddress address = new InetSocketAddress("localhost", greenMail.getSmtps().getPort());
      TransportTimeoutException e = assertThrows(TransportTimeoutException.class,
          () -> plain.run(PlaintextSmtpGreetingSession.class, address, Timeout.of(300, TimeUnit.MILLISECONDS)));
      assertTrue(e.getMessage().contains("nothing read so far"), e.getMessage());
    } finally {
      greenMail.stop();
    }
  }

  @Test
  void aServerThatNeverAnswersTimesTheHandshakeOut() throws Exception {
    TlsSettings quick = TlsSettings.builder().context(TestTls.pki().clientContext())
        .handshakeTimeout(300, TimeUnit.MILLISECONDS).build();
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().stall(Duration.ofSeconds(30)),
        Delivery.WHOLE);
         SessionMode quickMode = plain.tls(quick)) {
      TransportTimeoutException e = assertThrows(TransportTimeoutException.class,
          () -> quickMode.run(HttpsHelloSession.class, new InetSocketAddress("localhost", server.address().getPort()),
              TEN_SECONDS));
      assertEquals("TLS handshake with localhost:" + server.address().getPort() + " timed out after 300 ms",
          e.getMessage());
    }
  }

  private static void assertHandshakeFails(SessionMode mode, InetSocketAddress address, String reason) {
    TlsHandshakeException e = assertThrows(TlsHandshakeException.class,
        () -> mode.run(HttpsHelloSession.class, address, TEN_SECONDS));
    String expected = "TLS handshake with localhost:" + address.getPort() + " failed: " + reason;
    assertTrue(e.getMessage().startsWith(expected), e.getMessage());
  }
}
