package io.weft.transport.spi;

import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.UnknownHostException;

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

  /**
   * {@code "<what> failed: host not resolved"}, caused by {@code cause}: a connect to an address whose
   * name did not resolve, the same on every connector, whatever the resolver said (or whether one
   * was asked: the JDK's socket and MINA never resolve an unresolved address, Netty's bootstrap
   * does, and a failed look-up's message depends on the name service and the JDK's cache).
   *
   * @param what the connect, naming the address ({@code "connect to host/<unresolved>:port"})
   * @param cause the library's or the JDK's failure, or null
   * @return a new exception to throw in its place
   */
  public static UnknownHostException unknownHost(String what, Throwable cause) {
    UnknownHostException named = new UnknownHostException(what + " failed: host not resolved");
    if (cause != null) {
      named.initCause(cause);
    }
    return named;
  }
}
