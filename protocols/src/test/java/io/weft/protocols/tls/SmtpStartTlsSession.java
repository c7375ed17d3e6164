package io.weft.protocols.tls;

import io.weft.protocols.smtp.SmtpClient;
import io.weft.protocols.smtp.SmtpReply;
import io.weft.transport.SessionTask;
import io.weft.transport.TlsSettings;
import io.weft.transport.Transport;
import java.util.List;

/**
 * Mail submission the RFC 3207 way: greeting, EHLO, STARTTLS when offered, EHLO again over TLS,
 * then one message. Returns the TLS protocol, the extensions offered before and after, and the
 * final reply code.
 */
public class SmtpStartTlsSession implements SessionTask<String> {
  private final TlsSettings tls;

  public SmtpStartTlsSession(TlsSettings tls) {
    this.tls = tls;
  }

  @Override
  public String run(Transport transport, int index) throws Exception {
    SmtpClient smtp = new SmtpClient(transport);
    smtp.greeting();
    smtp.hello("client.example");
    List<String> before = smtp.extensions();
    if (!smtp.offersStartTls()) {
      throw new AssertionError("STARTTLS not offered: " + before);
    }
    smtp.startTls(tls, "client.example");
    List<String> after = smtp.extensions();
    SmtpReply sent = smtp.send("a@example.com", List.of("b@example.com"),
        ("Subject: over tls " + index + "\r\n\r\nmessage " + index + "\r\n").getBytes());
    smtp.quit();
    return transport.tlsSession().get().getProtocol() + " " + before + " " + after + " " + sent.code();
  }
}
