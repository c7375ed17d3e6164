package io.weft.perf.scaling;

/** How a run's sessions reach the echo server. */
public enum TransportKind {
  /** MINA's in-VM pipe: no sockets, no kernel, no file descriptors. */
  PIPE,
  /** Loopback TCP, possibly over several 127.x addresses. */
  TCP;

  /** Lower-case name, as used on the command line and in result files. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
