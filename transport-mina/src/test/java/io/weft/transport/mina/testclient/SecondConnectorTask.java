package io.weft.transport.mina.testclient;

import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.SocketAddress;

/** Exchanges a line over the run's transport, then one over a transport of a second connector; plain client code. */
public final class SecondConnectorTask implements SessionTask<String> {
  private final Connector second;
  private final SocketAddress address;

  public SecondConnectorTask(Connector second, SocketAddress address) {
    this.second = second;
    this.address = address;
  }

  @Override
  public String run(Transport transport, int index) throws IOException {
    String first = exchange(transport, "first " + index);
    try (Transport other = second.connect(address, Timeout.NONE)) {
      return first + ", " + exchange(other, "second " + index);
    }
  }

  private static String exchange(Transport transport, String line) throws IOException {
    transport.writeLine(line);
    transport.flush();
    return transport.readLineStrict(200);
  }
}
