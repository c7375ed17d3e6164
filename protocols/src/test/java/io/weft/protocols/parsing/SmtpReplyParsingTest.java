package io.weft.protocols.parsing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.protocols.smtp.SmtpClient;
import io.weft.protocols.smtp.SmtpReply;
import io.weft.protocols.smtp.SmtpReplyException;
import io.weft.testsupport.InMemoryTransport;
import io.weft.transport.ProtocolViolationException;
import java.io.EOFException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** SMTP reply parsing, over an in-memory transport: multi-line replies and the broken edges. */
class SmtpReplyParsingTest {

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aMultiLineEhloReplyGivesTheExtensions(Delivery delivery) throws Exception {
    InMemoryTransport transport = delivery.of(
        "220 mx.test ready\r\n250-mx.test hello\r\n250-SIZE 10240000\r\n250 8BITMIME\r\n");
    SmtpClient client = new SmtpClient(transport);
    assertEquals(220, client.greeting().code());
    SmtpReply hello = client.hello("client.test");
    assertEquals(250, hello.code());
    assertEquals(List.of("SIZE 10240000", "8BITMIME"), client.extensions());
    assertEquals("EHLO client.test\r\n", transport.written());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aRejectedEhloFallsBackToHelo(Delivery delivery) throws Exception {
    InMemoryTransport transport = delivery.of("220 old\r\n502 no EHLO\r\n250 hi\r\n");
    SmtpClient client = new SmtpClient(transport);
    client.greeting();
    assertEquals(250, client.hello("c").code());
    assertEquals(List.of(), client.extensions());
    assertEquals("EHLO c\r\nHELO c\r\n", transport.written());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aGreetingThatIsNot2xxIsAReplyException(Delivery delivery) {
    SmtpClient client = new SmtpClient(delivery.of("554 go away\r\n"));
    SmtpReplyException e = assertThrows(SmtpReplyException.class, client::greeting);
    assertTrue(e.getMessage().contains("554"), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aLineThatIsNotAReplyIsAProtocolViolationQuotingIt(Delivery delivery) {
    SmtpClient client = new SmtpClient(delivery.of("hello there\r\n"));
    ProtocolViolationException e = assertThrows(ProtocolViolationException.class, client::greeting);
    assertTrue(e.getMessage().contains("hello there"), e.getMessage());
  }

  @ParameterizedTest
  @EnumSource(Delivery.class)
  void aReplyCutShortIsAnEndOfStream(Delivery delivery) {
    SmtpClient client = new SmtpClient(delivery.of("220-first line\r\n220-second"));
    assertThrows(EOFException.class, client::greeting);
  }
}
