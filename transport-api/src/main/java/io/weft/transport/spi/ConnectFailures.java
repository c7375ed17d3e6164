package io.weft.transport.spi;

import java.net.ConnectException;
import java.net.SocketAddress;

/**
 * The one form of a refused or failed connect across Weft's connectors: a
 * {@link ConnectException} whose message names the address, which the JDK's and MINA's do not
 * ("Connection refused"), so that a run against many servers says which one.
 */
public final class ConnectFailures {
  private ConnectFailures() {}

  /**
   * {@code "connect to <remote> failed: <reason>"}, caused by {@code e}.
   *
   * @param remote the address the connect was to
   * @param e the library's or the JDK's failure, whose message is the reason
   * @return a new exception to throw in place of {@code e}
   */
  public static ConnectException naming(SocketAddress remote, ConnectException e) {
    return naming(ConnectorCore.connectWhat(remote), e);
  }

  /**
   * {@code "<what> failed: <reason>"}, caused by {@code e}; for a connect that is described by
   * more than its address (through a proxy, say).
   *
   * @param what the connect, naming the address ({@code "connect to host:port"})
   * @param e the library's or the JDK's failure, whose message is the reason
   * @return a new exception to throw in place of {@code e}
   */
  public static ConnectException naming(String what, ConnectException e) {
    ConnectException named = new ConnectException(what + " failed: " + e.getMessage());
    named.initCause(e);
    return named;
  }
}
