package io.weft.transport.netty;

import io.weft.transport.Transport;
import io.weft.transport.netty.internal.ChannelState;

/**
 * Test access to a Netty transport's channel state, for the suites elsewhere that run every
 * transport side by side and check what each buffered (shipped in this module's test-jar).
 */
public final class NettyTransports {
  private NettyTransports() {}

  /**
   * The channel state of {@code transport}, a transport opened by a Netty connector.
   *
   * @throws ClassCastException if it is not one
   */
  public static ChannelState state(Transport transport) {
    return transport instanceof NettyTransport
        ? ((NettyTransport) transport).state()
        : ((SuspendingNettyTransport) transport).state();
  }
}
