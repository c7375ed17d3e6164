package io.weft.continuations.testclient;

import io.weft.transport.Transport;
import java.io.IOException;
import java.io.InputStream;

/** The classic mistake: a Transport wrapped as an InputStream for a BufferedReader. */
final class TransportInputStream extends InputStream {
  private final Transport transport;

  TransportInputStream(Transport transport) {
    this.transport = transport;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return transport.read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    return transport.read(b, off, len);
  }
}
