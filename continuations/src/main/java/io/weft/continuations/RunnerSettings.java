package io.weft.continuations;

import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import java.net.SocketAddress;
import java.util.List;

/** What a {@link SessionRunner.Builder} was given, shared by every mode's runner. */
record RunnerSettings(
    Mode mode,
    Connector connector,
    List<SocketAddress> addresses,
    Timeout timeout,
    List<String> packages,
    boolean alreadyRewritten,
    boolean debugFrames,
    boolean allowBlockingConnector,
    int maxInFlight,
    ClassLoader parent,
    long closeWaitMillis,
    ConnectPacing connectPacing,
    ConnectWindow connectWindow,
    List<ThreadContext<?>> contexts,
    ContinuationClassLoader loader) {

  RunnerSettings {
    addresses = List.copyOf(addresses);
    packages = List.copyOf(packages);
    contexts = List.copyOf(contexts);
  }

  /** Where session {@code index} connects: round robin over the addresses. */
  SocketAddress addressFor(int index) {
    return addresses.get(index % addresses.size());
  }
}
