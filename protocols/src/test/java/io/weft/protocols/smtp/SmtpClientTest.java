package io.weft.protocols.smtp;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import io.weft.protocols.PerModeTest;
import io.weft.protocols.ModeCase;
import io.weft.protocols.SessionMode;
import io.weft.testsupport.ScriptedServer;
import io.weft.testsupport.ScriptedServer.Delivery;
import io.weft.transport.LineTooLongException;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SessionTask;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link SmtpClient} against GreenMail, a real SMTP server embedded in the test, and against a
 * scripted misbehaving server, in every mode ({@link ModeCase}, one invocation of the class
 * each). Every client conversation is a {@link SessionTask} run through the mode's runner (the
 * nested classes below, each after its test). Every scripted test runs with whole and with one-
 * byte-at-a-time delivery. The test at scale has a GreenMail SMTP server of its own that takes a
 * burst of connects ({@link BurstReadySmtpServer}).
 */
@ParameterizedClass(name = "{0}")
@MethodSource("modes")
class SmtpClientTest extends PerModeTest {
  /** Every mode, with as many sessions at scale as it and the real server take here. */
  static Stream<ModeCase> modes() {
    return ModeCase.all(100, 500, 1000, 1000);
  }

  protected static final Timeout TEN_SECONDS = Timeout.of(10, TimeUnit.SECONDS);
  private static final Duration SCRIPT_WAIT = Duration.ofSeconds(10);

  @RegisterExtension
  static final GreenMailExtension GREEN_MAIL = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort());



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

  private <T> T runAgainst(ScriptedServer.Script script, Delivery delivery, Class<? extends SessionTask<T>> task,
      Object... args) throws Exception {
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      return mode.run(task, server.address(), TEN_SECONDS, args);
    }
  }

  // ---- against GreenMail ----

  @Test
  public void messageIsDeliveredByteForByteToEveryRecipient() throws Exception {
    String message = "From: a@localhost\r\nTo: b@localhost, c@localhost\r\nSubject: bytes\r\n\r\n"
        + "first line\r\n\r\nlast line\r\n";
    mode.run(DeliverToTwo.class, greenMail(), TEN_SECONDS, message);
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

  public static final class DeliverToTwo implements SessionTask<Boolean> {
    private final String message;

    public DeliverToTwo(String message) {
      this.message = message;
    }

    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport);
      assertEquals(220, smtp.greeting().code());
      SmtpReply ehlo = smtp.hello("client.localhost");
      assertEquals(250, ehlo.code());
      assertEquals(250, smtp.mailFrom("a@localhost").code());
      smtp.rcptTo("b@localhost");
      smtp.rcptTo("c@localhost");
      assertEquals(250, smtp.data(message).code());
      assertEquals(221, smtp.quit().code());
      return true;
    }
  }

  @Test
  public void dotStuffingAndLineEndsAreUndoneByTheServer() throws Exception {
    String sent = "Subject: dots\n\n.leading dot\n..two dots\nbare LF\rbare CR\r\n.\nno final line end";
    String delivered = "Subject: dots\r\n\r\n.leading dot\r\n..two dots\r\nbare LF\r\nbare CR\r\n.\r\nno final line end\r\n";
    mode.run(SendOne.class, greenMail(), TEN_SECONDS, "dots@localhost", sent);
    assertTrue(GREEN_MAIL.waitForIncomingEmail(10_000, 1));
    MimeMessage m = GREEN_MAIL.getReceivedMessages()[0];
    assertEquals(withoutFinalCrlf(delivered), deliveredContent(m));
    try (InputStream raw = m.getRawInputStream()) {
      assertEquals(".leading dot\r\n..two dots\r\nbare LF\r\nbare CR\r\n.\r\nno final line end",
          new String(raw.readAllBytes(), UTF_8));
    }
  }

  /** Greets, sends the message given to the recipient given, quits. */
  public static final class SendOne implements SessionTask<Boolean> {
    private final String recipient;
    private final String message;

    public SendOne(String recipient, String message) {
      this.recipient = recipient;
      this.message = message;
    }

    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport);
      smtp.greeting();
      smtp.hello("client.localhost");
      smtp.send("a@localhost", List.of(recipient), message.getBytes(UTF_8));
      smtp.quit();
      return true;
    }
  }

  @Test
  public void rsetAbortsATransactionAndANewOneFollows() throws Exception {
    mode.run(RsetThenSend.class, greenMail(), TEN_SECONDS);
    assertTrue(GREEN_MAIL.waitForIncomingEmail(10_000, 1));
    MimeMessage[] received = GREEN_MAIL.getReceivedMessages();
    assertEquals(1, received.length);
    assertEquals("kept", received[0].getSubject());
  }

  public static final class RsetThenSend implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport);
      smtp.greeting();
      smtp.hello("client.localhost");
      smtp.mailFrom("a@localhost");
      smtp.rcptTo("dropped@localhost");
      assertEquals(250, smtp.rset().code());
      try {
        smtp.data("x");
        fail("DATA after RSET");
      } catch (IllegalStateException expected) {
        // the transaction is gone
      }
      smtp.send("a@localhost", List.of("kept@localhost"), "Subject: kept\r\n\r\nbody\r\n".getBytes(UTF_8));
      smtp.quit();
      return true;
    }
  }

  @Test
  public void concurrentSessionsEachDeliverTheirMessage() throws Exception {
    // One descriptor per session here, and one for the server's end of it: it runs in this JVM.
    SessionMode.requireFileDescriptors(2L * modeCase.sessionsAtScale());
    BurstReadySmtpServer server = BurstReadySmtpServer.begin();
    try {
      List<String> codes = mode.runSessions(SmtpSendSession.class, server.address(), modeCase.sessionsAtScale(), TEN_SECONDS);
      for (int i = 0; i < modeCase.sessionsAtScale(); i++) {
        assertEquals("250", codes.get(i), "session " + i);
      }
      List<String> subjects = new ArrayList<>();
      for (MimeMessage m : server.awaitMessages(2 * modeCase.sessionsAtScale(), 30_000)) {
        subjects.add(m.getSubject());
        assertTrue(deliveredContent(m).endsWith("\r\n.a line that starts with a dot"), deliveredContent(m));
      }
      assertEquals(2 * modeCase.sessionsAtScale(), subjects.size());
      Set<String> distinct = new HashSet<>(subjects);
      for (int i = 0; i < modeCase.sessionsAtScale(); i++) {
        assertTrue(distinct.contains(SmtpSendSession.subject(i)), "no message from session " + i);
      }
    } finally {
      server.stopService();
    }
  }

  // ---- against a scripted, misbehaving server ----

  /** Reads the greeting; for failure tests. */
  public static final class Greeting implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws Exception {
      return new SmtpClient(transport).greeting().text();
    }
  }

  /** Reads the greeting, then says EHLO me; for failure tests. */
  public static final class GreetingThenHello implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport);
      smtp.greeting();
      return smtp.hello("me").text();
    }
  }

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
      mode.run(WholeConversation.class, server.address(), TEN_SECONDS);
      server.awaitScript(SCRIPT_WAIT);
    }
  }

  public static final class WholeConversation implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport);
      SmtpReply greeting = smtp.greeting();
      assertEquals(List.of("scripted.example ESMTP", "second greeting line"), greeting.lines());
      assertEquals(250, smtp.hello("me").code());
      assertTrue(smtp.extensions().isEmpty());
      smtp.mailFrom("");
      try {
        smtp.rcptTo("x@y");
        fail("a refused recipient was taken");
      } catch (SmtpReplyException refused) {
        assertEquals(550, refused.code());
        assertEquals("5.1.1 no such user", refused.text());
        assertFalse(refused.isTransient());
      }
      smtp.rcptTo("z@y");
      assertEquals("queued", smtp.data("Subject: s\n\n.dot\nline").text());
      assertEquals(221, smtp.quit().code());
      return true;
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void replyLineOverTheLimitIsAViolationQuotingIt(Delivery delivery) throws Exception {
    runAgainst(ScriptedServer.script().send("220 " + "g".repeat(300) + "\r\n"), delivery, LongLine.class);
  }

  public static final class LongLine implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport, 100);
      try {
        smtp.greeting();
        fail("a 300-byte line passed a 100-byte limit");
      } catch (LineTooLongException e) {
        assertTrue(e.getMessage().contains("\"220 ggg"), e.getMessage());
      }
      try {
        smtp.hello("me");
        fail("the client carried on after a violation");
      } catch (IllegalStateException expected) {
        // the connection's framing is lost
      }
      return true;
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void truncatedMultiLineReplyIsAnEofQuotingThePartialLine(Delivery delivery) {
    ScriptedServer.Script script = ScriptedServer.script()
        .send("220 hi\r\n").expectLine("EHLO me").send("250-first\r\n250-SIZE 10").close();
    EOFException e = assertThrows(EOFException.class, () -> runAgainst(script, delivery, GreetingThenHello.class));
    assertTrue(e.getMessage().contains("\"250-SIZE 10\""), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void nonNumericReplyCodeIsAViolationQuotingTheLine(Delivery delivery) {
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().send("2x0 hello\r\n"), delivery, Greeting.class));
    assertEquals("non-numeric reply code: \"2x0 hello\"", e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void malformedOrInconsistentRepliesAreViolations(Delivery delivery) {
    ProtocolViolationException changed = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().send("220-a\r\n221 b\r\n"), delivery, Greeting.class));
    assertEquals("reply code changed from 220 inside a multi-line reply: \"221 b\"", changed.getMessage());
    ProtocolViolationException separator = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().send("220*hello\r\n"), delivery, Greeting.class));
    assertEquals("expected ' ' or '-' after the reply code: \"220*hello\"", separator.getMessage());
    ProtocolViolationException http = assertThrows(ProtocolViolationException.class,
        () -> runAgainst(ScriptedServer.script().send("HTTP/1.1 400 Bad Request\r\n"), delivery, Greeting.class));
    assertEquals("non-numeric reply code: \"HTTP/1.1 400 Bad Request\"", http.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void replyOutsideTheExpectedClassIsATypedExceptionWithCodeAndText(Delivery delivery) throws Exception {
    assertEquals("554 \"5.7.1 go away\" permanent: greeting answered 554 \"5.7.1 go away\"",
        runAgainst(ScriptedServer.script().send("554 5.7.1 go away\r\n"), delivery, Refused.class, false));
    ScriptedServer.Script busy = ScriptedServer.script()
        .send("220 hi\r\n").expectLine("EHLO me").send("421 4.3.2 busy\r\n");
    assertTrue(runAgainst(busy, delivery, Refused.class, true).startsWith("421 \"4.3.2 busy\" transient: "));
  }

  /**
   * Reads the greeting (and says EHLO me if told to), expecting a refusal; returns the
   * {@link SmtpReplyException}'s code, text, whether transient, and message.
   */
  public static final class Refused implements SessionTask<String> {
    private final boolean hello;

    public Refused(Boolean hello) {
      this.hello = hello;
    }

    @Override
    public String run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport);
      try {
        smtp.greeting();
        if (hello) {
          smtp.hello("me");
        }
      } catch (SmtpReplyException e) {
        return e.code() + " \"" + e.text() + "\" " + (e.isTransient() ? "transient" : "permanent") + ": " + e.getMessage();
      }
      throw new AssertionError("no refusal");
    }
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverClosingMidReplyIsAnEofQuotingThePartialLine(Delivery delivery) {
    EOFException e = assertThrows(EOFException.class,
        () -> runAgainst(ScriptedServer.script().send("220 hel").close(), delivery, Greeting.class));
    assertTrue(e.getMessage().contains("\"220 hel\""), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  public void serverStallingMidReplyTimesOutInsteadOfHanging(Delivery delivery) throws Exception {
    ScriptedServer.Script script = ScriptedServer.script().send("220-first\r\n").stall(Duration.ofSeconds(5));
    try (ScriptedServer server = ScriptedServer.start(script, delivery)) {
      mode.run(Stalled.class, server.address(), Timeout.of(300, TimeUnit.MILLISECONDS));
    }
  }

  public static final class Stalled implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport);
      try {
        smtp.greeting();
        fail("a stalled greeting came back");
      } catch (TransportTimeoutException expected) {
        // the transport is unusable now
      }
      try {
        smtp.hello("me");
        fail("the client carried on after a timeout");
      } catch (IllegalStateException expected) {
        // and the client knows it
      }
      return true;
    }
  }

  @Test
  public void commandsOutOfOrderAndLineBreaksInArgumentsAreRefusedLocally() throws Exception {
    runAgainst(ScriptedServer.script().send("220 hi\r\n"), Delivery.WHOLE, OutOfOrder.class);
  }

  public static final class OutOfOrder implements SessionTask<Boolean> {
    @Override
    public Boolean run(Transport transport, int index) throws Exception {
      SmtpClient smtp = new SmtpClient(transport);
      try {
        smtp.mailFrom("a@b");
        fail("MAIL before the greeting");
      } catch (IllegalStateException expected) {
        // out of order
      }
      smtp.greeting();
      try {
        smtp.hello("me\r\nQUIT");
        fail("a line break in EHLO's argument");
      } catch (IllegalArgumentException expected) {
        // no smuggling
      }
      try {
        smtp.rcptTo("a@b");
        fail("RCPT before MAIL");
      } catch (IllegalStateException expected) {
        // out of order
      }
      try {
        smtp.mailFrom("<a@b>");
        fail("an address in angle brackets");
      } catch (IllegalArgumentException expected) {
        // the client adds them
      }
      return true;
    }
  }
}
