package io.weft.perf.peers;

/** The row labels the ratios and targets refer to; the clients use the same strings. */
final class ClientLabels {
  static final String CONT_1 = "weft cont(1) mina";
  static final String CONT_2 = "weft cont(2) mina";
  static final String CONT_1_NETTY = "weft cont(1) netty";
  static final String WEFT_VT_NETTY = "weft VT netty";
  static final String WEFT_VT_SOCKET = "weft VT socket";
  static final String WEFT_VT_MINA = "weft VT mina";
  static final String PLAIN_VT = "VT java.net.Socket";
  static final String NETTY = "netty 4.1 callbacks";
  static final String REDIS_BENCHMARK = "redis-benchmark";

  private ClientLabels() {
  }
}
