package io.weft.protocols.callers;

import io.weft.protocols.smtp.SmtpClient;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/** Reads the greeting of a server that refuses service: SmtpClient throws SmtpReplyException. */
public final class SmtpGreetingTask implements SessionTask<String> {
  @Override
  public String run(Transport transport, int index) throws Exception {
    return new SmtpClient(transport).greeting().text();
  }
}
