package io.weft.protocols.smtp;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.util.List;

/**
 * One session at scale: greet, EHLO, send one message to two recipients, QUIT. Returns the
 * code of the server's acceptance of the message; a named class so the runner can load it by
 * name.
 */
public class SmtpSendSession implements SessionTask<String> {

  /** The subject of session {@code index}'s message. */
  public static String subject(int index) {
    return "session " + index;
  }

  @Override
  public String run(Transport transport, int index) throws Exception {
    SmtpClient smtp = new SmtpClient(transport);
    smtp.greeting();
    smtp.hello("client" + index + ".localhost");
    String message = "From: sender" + index + "@localhost\r\n"
        + "To: user" + index + "@localhost\r\n"
        + "Subject: " + subject(index) + "\r\n"
        + "\r\n"
        + "Hello from session " + index + ".\n"
        + ".a line that starts with a dot\n";
    SmtpReply accepted = smtp.send("sender" + index + "@localhost",
        List.of("user" + index + "@localhost", "copy" + index + "@localhost"), message.getBytes("UTF-8"));
    smtp.quit();
    return Integer.toString(accepted.code());
  }
}
