package io.weft.protocols.tls;

import io.weft.protocols.smtp.SmtpClient;
import io.weft.protocols.smtp.SmtpReply;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.List;

/** One message over implicit TLS (SMTPS, port 465's way): the plain client on a TLS transport. */
public class SmtpsSession implements SessionTask<Integer> {
  @Override
  public Integer run(Transport transport, int index) throws Exception {
    if (!transport.tlsSession().isPresent()) {
      throw new AssertionError("not over TLS");
    }
    SmtpClient smtp = new SmtpClient(transport);
    smtp.greeting();
    smtp.hello("client.example");
    SmtpReply sent = smtp.send("a@example.com", List.of("smtps" + index + "@example.com"),
        ("Subject: smtps " + index + "\r\n\r\nbody " + index + "\r\n").getBytes());
    smtp.quit();
    return sent.code();
  }
}
