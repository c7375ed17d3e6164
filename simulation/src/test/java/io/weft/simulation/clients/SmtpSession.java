package io.weft.simulation.clients;

import io.weft.protocols.smtp.SmtpClient;
import io.weft.protocols.smtp.SmtpReply;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Greeting, EHLO, one message to two recipients, QUIT; returns the acceptance's code. */
public final class SmtpSession implements SessionTask<String> {
  public SmtpSession() {}

  @Override
  public String run(Transport transport, int session) throws Exception {
    SmtpClient smtp = new SmtpClient(transport);
    smtp.greeting();
    smtp.hello("client" + session + ".example");
    String message = "From: a" + session + "@example\r\nTo: b@example\r\nSubject: s" + session + "\r\n\r\n"
        + "Hello.\n.a line that starts with a dot\n";
    SmtpReply accepted = smtp.send("a" + session + "@example", List.of("b@example", "c@example"),
        message.getBytes(StandardCharsets.UTF_8));
    smtp.quit();
    return Integer.toString(accepted.code());
  }
}
