package io.weft.transport.netty.internal;

import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.channels.spi.SelectorProvider;

/**
 * The NIO socket channel of a Weft connect: Netty's, without the {@code getsockopt(SO_LINGER)}
 * that Netty's own close makes on every channel to learn whether the JDK's close could block
 * (only with a linger above 0: Netty then closes it off the event loop). Weft never sets
 * {@code SO_LINGER} (no connector option does), so the answer is always that it cannot, and the
 * channel closes on its event loop as Netty's would; the JDK's close still reads the option
 * itself, for its own half-close. One system call less per connection, for a client that
 * connects per session. Not API.
 */
public final class LingerlessSocketChannel extends NioSocketChannel {
  /**
   * A new, unconnected channel.
   *
   * @param provider the provider of the JDK channel, that of the event loops' selectors
   * @throws io.netty.channel.ChannelException if the JDK cannot open a socket
   */
  public LingerlessSocketChannel(SelectorProvider provider) {
    super(provider);
  }

  /** Netty's own unsafe of a NIO socket channel but for its close's linger check. */
  @Override
  protected AbstractNioUnsafe newUnsafe() {
    return new NioByteUnsafe() { };
  }
}
