package io.weft.protocols.smtp;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;

/**
 * {@link SmtpSendSession}, returning when the session began, after its connect
 * ({@code System.nanoTime()}), once its message is accepted: when its connection was open.
 */
public class StampedSendSession implements SessionTask<Long> {
  @Override
  public Long run(Transport transport, int index) throws Exception {
    long began = System.nanoTime();
    String accepted = new SmtpSendSession().run(transport, index);
    if (!"250".equals(accepted)) {
      throw new IllegalStateException("session " + index + ": the message was answered " + accepted);
    }
    return began;
  }
}
