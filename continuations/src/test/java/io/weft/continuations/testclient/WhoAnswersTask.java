package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;

/** Asks the server who it is: writes {@code who <index>}, returns the one line it answers. */
public final class WhoAnswersTask implements SessionTask<String> {

  public WhoAnswersTask() {
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("who " + index);
    transport.flush();
    return transport.readLineStrict(200);
  }
}
