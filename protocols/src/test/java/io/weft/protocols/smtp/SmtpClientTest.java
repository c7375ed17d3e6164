package io.weft.protocols.smtp;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.weft.protocols.TransportMode;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportTimeoutException;
import jakarta.mail.internet.MimeMessage;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link SmtpClient} against GreenMail, a real SMTP server embedded in the test, and against a
 * scripted misbehaving server, in the mode a subclass supplies. Every scripted test runs with
 * whole and with one-byte-at-a-time delivery.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@org.junit.jupiter.api.Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class SmtpClientTest {
  protected static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);
  /**
   * Sessions in the test at scale: 100 on the platform threads of {@code SYNC}; a mode that
   * multiplexes sessions (continuations, virtual threads) overrides this with thousands.
   */
  protected int sessionsAtScale() {
    return 100;
  }
  private static final Duration SCRIPT_WAIT = Duration.ofSeconds(10);

  @RegisterExtension
  static final GreenMailExtension GREEN_MAIL = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());

  private TransportMode mode;

  protected abstract TransportMode newMode();

  @BeforeAll
  void openMode() {
    mode = newMode();
  }

  @AfterAll
  void closeMode() {
    mode.close();
  }

  private static InetSocketAddress greenMail() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), GREEN_MAIL.getSmtp().getPort());
  }

  /** The bytes of the message as GreenMail stored it: headers it added, then ours. */
  private static byte[] stored(MimeMessage message) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    message.writeTo(out);
    return out.toByteArray();
  }

  /**
   * The message as GreenMail stored it, without the trace headers it adds on delivery
   * ({@code Return-Path}, {@code Received}). GreenMail also takes the CRLF before the ending
   * {@code "."} line as part of the terminator, so the stored message lacks its last CRLF.
   */
  private static String deliveredContent(MimeMessage message) throws Exception {
    String stored = new String(stored(message), UTF_8);
    while (stored.startsWith("Return-Path:") || stored.startsWith("Received:")) {
      stored = stored.substring(stored.indexOf("\r\n") + 2);
    }
    return stored;
  }

  private static String withoutFinalCrlf(String message) {
    return message.endsWith("\r\n") ? message.substring(0, message.length() - 2) : message;
  }

  // ---- against GreenMail ----

  @Test
  public void messageIsDeliveredByteForByteToEveryRecipient() throws Exception {
    String message = "From: a@localhost\r\nTo: b@localhost, c@localhost\r\nSubject: bytes\r\n\r\n"
        + "first line\r\n\r\nlast line\r\n";
    try (Transport transport = mode.connect(greenMail(), TEN_SECONDS)) {
      SmtpClient smtp = new SmtpClient(transport);
      assertEquals(220, smtp.greeting().code());
      SmtpReply ehlo = smtp.hello("client.localhost");
      assertEquals(250, ehlo.code());
      assertEquals(250, smtp.mailFrom("a@localhost").code());
      smtp.rcptTo("b@localhost");
      smtp.rcptTo("c@localhost");
      assertEquals(250, smtp.data(message).code());
      assertEquals(221, smtp.quit().code());
    }
    assertTrue(GREEN_MAIL.waitForIncomingEmail(10_000, 2));
    MimeMessage[] received = GREEN_MAIL.getReceivedMessages();
    assertEquals(2, received.length);
    for (MimeMessage m : received) {
      assertEquals(withoutFinalCrlf(message), deliveredContent(m));
      assertEquals("bytes", m.getSubject());
    }
    // GreenMail makes a mailbox for each recipient it delivers to.
    assertNotNull(GREEN_MAIL.getUserManager().getUserByEmail("b@localhost"));
    assertNotNull(GREEN_MAIL.getUserManager().getUserByEmail("c@localhost"));
  }

  @Test
  public void dotStuffingAndLineEndsAreUndoneByTheServer() throws Exception {
    String sent = "Subject: dots\n\n.leading dot\n..two dots\nbare LF\rbare CR\r\n.\nno final line end";
    String delivered = "Subject: dots\r\n\r\n.leading dot\r\n..two dots\r\nbare LF\r\nbare CR\r\n.\r\nno final line end\r\n";
    try (Transport transport = mode.connect(greenMail(), TEN_SECONDS)) {
      SmtpClient smtp = new SmtpClient(transport);
      smtp.greeting();
      smtp.hello("client.localhost");
      smtp.send("a@localhost", List.of("dots@localhost"), sent.getBytes(UTF_8));
      smtp.quit();
    }
    assertTrue(GREEN_MAIL.waitForIncomingEmail(10_000, 1));
    MimeMessage m = GREEN_MAIL.getReceivedMessages()[0];
    assertEquals(withoutFinalCrlf(delivered), deliveredContent(m));
    try (InputStream raw = m.getRawInputStream()) {
      assertEquals(".leading dot\r\n..two dots\r\nbare LF\r\nbare CR\r\n.\r\nno final line end",
          new String(raw.readAllBytes(), UTF_8));
    }
  }

  @Test
  public void rsetAbortsATransactionAndANewOneFollows() throws Exception {
    try (Transport transport = mode.connect(greenMail(), TEN_SECONDS)) {
      SmtpClient smtp = new SmtpClient(transport);
      smtp.greeting();
      smtp.hello("client.localhost");
      smtp.mailFrom("a@localhost");
      smtp.rcptTo("dropped@localhost");
      assertEquals(250, smtp.rset().code());
      assertThrows(IllegalStateException.class, () -> smtp.data("x"));
      smtp.send("a@localhost", List.of("kept@localhost"), "Subject: kept\r\n\r\nbody\r\n".getBytes(UTF_8));
      smtp.quit();
    }
    assertTrue(GREEN_MAIL.waitForIncomingEmail(10_000, 1));
    MimeMessage[] received = GREEN_MAIL.getReceivedMessages();
    assertEquals(1, received.length);
    assertEquals("kept", received[0].getSubject());
  }

  @Test
  public void concurrentSessionsEachDeliverTheirMessage() throws Exception {
    List<String> codes = mode.runSessions(SmtpSendSession.class, greenMail(), sessionsAtScale(), TEN_SECONDS);
    for (int i = 0; i < sessionsAtScale(); i++) {
      assertEquals("250", codes.get(i), "session " + i);
    }
    assertTrue(GREEN_MAIL.waitForIncomingEmail(30_000, 2 * sessionsAtScale()));
    List<String> subjects = new ArrayList<>();
    for (MimeMessage m : GREEN_MAIL.getReceivedMessages()) {
      subjects.add(m.getSubject());
      assertTrue(deliveredContent(m).endsWith("\r\n.a line that starts with a dot"), deliveredContent(m));
    }
    for (int i = 0; i < sessionsAtScale(); i++) {
      assertTrue(subjects.contains(SmtpSendSession.subject(i)), "no message from session " + i);
    }
    assertEquals(2 * sessionsAtScale(), subjects.size());
  }

  // ---- against a scripted, misbehaving server ----

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void wholeConversationParsesWhateverTheDelivery(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script()
        .send("220-scripted.example ESMTP\r\n220 second greeting line\r\n")
        .expectLine("EHLO me")
        .send("502 5.5.1 EHLO not implemented\r\n")
        .expectLine("HELO me")
        .send("250 scripted.example\r\n")
        .expectLine("MAIL FROM:<>")
        .send("250 OK\r\n")
        .expectLine("RCPT TO:<x@y>")
        .send("550 5.1.1 no such user\r\n")
        .expectLine("RCPT TO:<z@y>")
        .send("250 OK\r\n")
        .expectLine("DATA")
        .send("354 go ahead\r\n")
        .expectLine("Subject: s")
        .expectLine("")
        .expectLine("..dot")
        .expectLine("line")
        .expectLine(".")
        .send("250 queued\r\n")
        .expectLine("QUIT")
        .send("221 bye\r\n");
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      try (Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
        SmtpClient smtp = new SmtpClient(transport);
        SmtpReply greeting = smtp.greeting();
        assertEquals(List.of("scripted.example ESMTP", "second greeting line"), greeting.lines());
        assertEquals(250, smtp.hello("me").code());
        assertTrue(smtp.extensions().isEmpty());
        smtp.mailFrom("");
        SmtpReplyException refused = assertThrows(SmtpReplyException.class, () -> smtp.rcptTo("x@y"));
        assertEquals(550, refused.code());
        assertEquals("5.1.1 no such user", refused.text());
        assertFalse(refused.isTransient());
        smtp.rcptTo("z@y");
        assertEquals("queued", smtp.data("Subject: s\n\n.dot\nline").text());
        assertEquals(221, smtp.quit().code());
      }
      server.awaitScript(SCRIPT_WAIT);
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void replyLineOverTheLimitIsAViolationQuotingIt(Delivery delivery) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send("220 " + "g".repeat(300) + "\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      SmtpClient smtp = new SmtpClient(transport, 100);
      LineTooLongException e = assertThrows(LineTooLongException.class, smtp::greeting);
      assertTrue(e.getMessage().contains("\"220 ggg"), e.getMessage());
      assertThrows(IllegalStateException.class, () -> smtp.hello("me"));
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void truncatedMultiLineReplyIsAnEofQuotingThePartialLine(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script()
        .send("220 hi\r\n").expectLine("EHLO me").send("250-first\r\n250-SIZE 10").close();
    try (ScriptedServer server = ScriptedServer.start(script, delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      SmtpClient smtp = new SmtpClient(transport);
      smtp.greeting();
      EOFException e = assertThrows(EOFException.class, () -> smtp.hello("me"));
      assertTrue(e.getMessage().contains("\"250-SIZE 10\""), e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void nonNumericReplyCodeIsAViolationQuotingTheLine(Delivery delivery) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send("2x0 hello\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, new SmtpClient(transport)::greeting);
      assertEquals("non-numeric reply code: \"2x0 hello\"", e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void malformedOrInconsistentRepliesAreViolations(Delivery delivery) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send("220-a\r\n221 b\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, new SmtpClient(transport)::greeting);
      assertEquals("reply code changed from 220 inside a multi-line reply: \"221 b\"", e.getMessage());
    }
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send("220*hello\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, new SmtpClient(transport)::greeting);
      assertEquals("expected ' ' or '-' after the reply code: \"220*hello\"", e.getMessage());
    }
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send("HTTP/1.1 400 Bad Request\r\n"), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      ProtocolViolationException e = assertThrows(ProtocolViolationException.class, new SmtpClient(transport)::greeting);
      assertEquals("non-numeric reply code: \"HTTP/1.1 400 Bad Request\"", e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void replyOutsideTheExpectedClassIsATypedExceptionWithCodeAndText(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script()
        .send("554 5.7.1 go away\r\n");
    try (ScriptedServer server = ScriptedServer.start(script, delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      SmtpReplyException e = assertThrows(SmtpReplyException.class, new SmtpClient(transport)::greeting);
      assertEquals(554, e.code());
      assertEquals("5.7.1 go away", e.text());
      assertEquals("greeting answered 554 \"5.7.1 go away\"", e.getMessage());
    }
    ScriptedServer.Script busy = ScriptedServer.script()
        .send("220 hi\r\n").expectLine("EHLO me").send("421 4.3.2 busy\r\n");
    try (ScriptedServer server = ScriptedServer.start(busy, delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      SmtpClient smtp = new SmtpClient(transport);
      smtp.greeting();
      SmtpReplyException e = assertThrows(SmtpReplyException.class, () -> smtp.hello("me"));
      assertTrue(e.isTransient());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverClosingMidReplyIsAnEofQuotingThePartialLine(Delivery delivery) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send("220 hel").close(), delivery);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      EOFException e = assertThrows(EOFException.class, new SmtpClient(transport)::greeting);
      assertTrue(e.getMessage().contains("\"220 hel\""), e.getMessage());
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverStallingMidReplyTimesOutInsteadOfHanging(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().send("220-first\r\n").stall(Duration.ofSeconds(5));
    try (ScriptedServer server = ScriptedServer.start(script, delivery);
        Transport transport = mode.connect(server.address(), Timeout.of(300, TimeUnit.MILLISECONDS))) {
      SmtpClient smtp = new SmtpClient(transport);
      assertThrows(TransportTimeoutException.class, smtp::greeting);
      assertThrows(IllegalStateException.class, () -> smtp.hello("me"));
    }
  }

  @Test
  public void commandsOutOfOrderAndLineBreaksInArgumentsAreRefusedLocally() throws Exception {
    try (ScriptedServer server = ScriptedServer.start(ScriptedServer.script().send("220 hi\r\n"), Delivery.WHOLE);
        Transport transport = mode.connect(server.address(), TEN_SECONDS)) {
      SmtpClient smtp = new SmtpClient(transport);
      assertThrows(IllegalStateException.class, () -> smtp.mailFrom("a@b"));
      smtp.greeting();
      assertThrows(IllegalArgumentException.class, () -> smtp.hello("me\r\nQUIT"));
      assertThrows(IllegalStateException.class, () -> smtp.rcptTo("a@b"));
      assertThrows(IllegalArgumentException.class, () -> smtp.mailFrom("<a@b>"));
    }
  }
}
