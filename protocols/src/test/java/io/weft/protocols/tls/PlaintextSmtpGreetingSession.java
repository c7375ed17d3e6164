package io.weft.protocols.tls;

import io.weft.protocols.smtp.SmtpClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** Waits for an SMTP greeting in plaintext, for an SMTPS port; returns its code. */
public class PlaintextSmtpGreetingSession implements SessionTask<Integer> {
  @Override
  public Integer run(Transport transport, int index) throws Exception {
    return new SmtpClient(transport).greeting().code();
  }
}
