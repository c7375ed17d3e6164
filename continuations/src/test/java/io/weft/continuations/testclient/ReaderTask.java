package io.weft.continuations.testclient;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** Reads the echo through a BufferedReader over the transport: refused at load time. */
public final class ReaderTask implements SessionTask<String> {
  public ReaderTask() {}

  @Override
  public String run(Transport transport, int index) throws IOException {
    transport.writeLine("via reader " + index);
    transport.flush();
    BufferedReader reader = new BufferedReader(
        new InputStreamReader(new TransportInputStream(transport), StandardCharsets.UTF_8));
    return reader.readLine();
  }
}
