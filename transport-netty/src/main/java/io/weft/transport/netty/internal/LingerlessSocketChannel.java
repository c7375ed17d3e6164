package io.weft.transport.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.spi.SelectorProvider;

/**
 * The NIO socket channel of a Weft connect: Netty's, without the {@code getsockopt(SO_LINGER)}
 * that Netty's own close makes on every channel to learn whether the JDK's close could block
 * (only with a linger above 0: Netty then closes it off the event loop). Weft never sets
 * {@code SO_LINGER} (no connector option does), so the answer is always that it cannot, and the
 * channel closes on its event loop as Netty's would; the JDK's close still reads the option
 * itself, for its own half-close. One system call less per connection, for a client that
 * connects per session; and a connect whose handshake was made inside the {@code connect} call
 * (loopback) is finished there, not at the next select (see {@link #doConnect}). It also lets
 * its {@link ChannelState} write a flush's bytes straight to
 * the socket where nothing could come between them ({@link #writeNow}), and reads the socket into
 * its event loop's own direct buffer while only its {@link ChannelState}'s handler reads what
 * arrives (see {@link ReadHandle}). Not API.
 */
public final class LingerlessSocketChannel extends NioSocketChannel {
  /**
   * The most bytes {@link #writeNow} writes (16 KiB, as MINA's {@code NioProcessor.writeNow}):
   * the JDK writes a heap array through a temporary direct buffer as large as the write, which it
   * then keeps for the thread's life; a larger flush goes through Netty's pooled buffers instead.
   */
  public static final int MAX_DIRECT_BYTES = 16 * 1024;

  /**
   * The JDK's socket adaptor of {@link #javaChannel()}, which its {@code socket()} makes once and
   * then returns under the JDK channel's state lock on every call; kept here so that
   * {@link #isInputShutdown} and {@link #isOutputShutdown} ask it without that lock.
   */
  private final java.net.Socket javaSocket;

  /**
   * A new, unconnected channel.
   *
   * @param provider the provider of the JDK channel, that of the event loops' selectors
   * @throws io.netty.channel.ChannelException if the JDK cannot open a socket
   */
  public LingerlessSocketChannel(SelectorProvider provider) {
    super(provider);
    javaSocket = javaChannel().socket();
  }

  /**
   * Netty's connect, then, if it is under way, the JDK's finish at once: the connect is done
   * already when the handshake took place inside the {@code connect} call, as it does to a
   * loopback listener (the kernel runs the SYN, the SYN-ACK and the ACK as it sends them), and
   * Netty then completes the connect here, in the same turn of the loop, instead of asking the
   * selector for {@code OP_CONNECT} (an {@code epoll_ctl}) and finishing it at the loop's next
   * select (a session that connects then suspends and is resumed there). A connect still under
   * way (the handshake is on the network) costs one {@code poll} more and goes on as before. A
   * connect that failed (refused) fails here as Netty's finish would fail it: the JDK's
   * finish closes the channel and throws the connect's own exception, which Netty reports on the
   * connect's promise with the address added ({@code AbstractNioUnsafe.connect}, as its
   * {@code finishConnect}), then closes the channel.
   */
  @Override
  protected boolean doConnect(SocketAddress remote, SocketAddress local) throws Exception {
    if (super.doConnect(remote, local)) {
      return true;
    }
    if (!javaChannel().finishConnect()) {
      return false;
    }
    // Connected: no OP_CONNECT to wait for. Netty's finish would have cleared it the same way;
    // the interest in reads follows from channelActive, which Netty fires on this return.
    SelectionKey key = selectionKey();
    key.interestOps(key.interestOps() & ~SelectionKey.OP_CONNECT);
    return true;
  }

  /**
   * Writes {@code src[offset, offset + length)} to the socket now, on the channel's event loop,
   * when nothing is in Netty's outbound buffer: the bytes then go to the kernel in the order the
   * caller wrote them, as Netty's own flush would write them there, only without the pipeline's
   * outbound walk, a pooled buffer, a copy into it, the outbound buffer's entry and a promise.
   * Writes nothing (returns 0) anywhere else: more than {@link #MAX_DIRECT_BYTES}, off the
   * event loop, on a channel not registered, not active or
   * whose output is shut down, or with bytes queued in Netty's outbound buffer. The caller must
   * also know that no outbound handler (such as TLS) sits in the pipeline: those bytes would
   * pass it by. A non-blocking socket takes what its send buffer has room for; the caller hands
   * the rest to Netty as usual, after these.
   *
   * @param src the bytes
   * @param offset the first to write
   * @param length how many
   * @return how many bytes went to the kernel: 0 when it may not write now, fewer than
   *     {@code length} when the socket's send buffer is full
   * @throws IOException if the socket's write failed (nothing was written then); the caller
   *     fails the write with it and closes the channel, as Netty's flush does
   */
  public int writeNow(byte[] src, int offset, int length) throws IOException {
    if (length > MAX_DIRECT_BYTES
        || !isRegistered() || !eventLoop().inEventLoop() || !isActive() || isOutputShutdown()) {
      return 0;
    }
    ChannelOutboundBuffer queued = unsafe().outboundBuffer();
    if (queued == null || !queued.isEmpty() || queued.totalPendingWriteBytes() != 0L) {
      return 0;
    }
    return javaChannel().write(ByteBuffer.wrap(src, offset, length));
  }

  /**
   * Netty's answer, {@code javaChannel().socket().isInputShutdown() || !isActive()}, without the
   * JDK's {@code socket()} and its lock: the socket is the one {@code socket()} returns, and the
   * JDK's answer there ({@code SocketAdaptor.isInputShutdown}, {@code !isInputOpen()}) is a
   * volatile read, whichever way the input was shut. Netty's read loop asks this before every
   * read.
   */
  @Override
  public boolean isInputShutdown() {
    return javaSocket.isInputShutdown() || !isActive();
  }

  /**
   * Netty's answer, {@code javaChannel().socket().isOutputShutdown() || !isActive()}, without the
   * JDK's {@code socket()} and its lock, as {@link #isInputShutdown}. {@link #writeNow} asks this
   * before every write.
   */
  @Override
  public boolean isOutputShutdown() {
    return javaSocket.isOutputShutdown() || !isActive();
  }

  /** Netty's own unsafe of a NIO socket channel but for its close's linger check and its read buffer. */
  @Override
  @SuppressWarnings("deprecation") // RecvByteBufAllocator.Handle: the type Netty's read loop asks for
  protected AbstractNioUnsafe newUnsafe() {
    return new NioByteUnsafe() {
      /** Made by the event loop's first read; only the event loop reads it. */
      private ReadHandle handle;

      @Override
      public RecvByteBufAllocator.Handle recvBufAllocHandle() {
        ReadHandle h = handle;
        if (h == null) {
          h = new ReadHandle(super.recvBufAllocHandle(), LingerlessSocketChannel.this);
          handle = h;
        }
        return h;
      }
    };
  }

  /**
   * The read loop's buffers: where its adaptive guess would take a pooled buffer, it takes the
   * event loop's own read buffer ({@link NettyLoopThread#readBuffer}) instead, on a channel whose
   * pipeline is its {@link ChannelState}'s handler alone (plaintext: no TLS handler, nothing that
   * could keep the buffer past the read). That handler copies the bytes into the session's buffer
   * and releases it before anything else runs, so the same buffer serves the loop's next read, of
   * any of its channels: no pooled allocation, no release back to the pool (and its pinned-memory
   * counter) per read, as MINA's processor reads into its thread's buffer. A buffer someone took a
   * reference to is not read into again until it is given back (its reference count says so); the
   * read then takes a pooled buffer, as does every read of a channel with any other handler, and
   * every read off a Weft event loop. The count cannot see an un-retained view of the buffer
   * (a {@code slice()} kept past the read would see the next read's bytes): that is why no handler
   * but Weft's own, which keeps nothing, may see it.
   */
  @SuppressWarnings("deprecation") // RecvByteBufAllocator.Handle: the type Netty's read loop asks for
  static final class ReadHandle extends RecvByteBufAllocator.DelegatingHandle {
    private final LingerlessSocketChannel channel;

    ReadHandle(RecvByteBufAllocator.Handle delegate, LingerlessSocketChannel channel) {
      super(delegate);
      this.channel = channel;
    }

    @Override
    public ByteBuf allocate(ByteBufAllocator alloc) {
      Thread t = Thread.currentThread();
      if (t instanceof NettyLoopThread && ChannelState.onlyThisStatesHandler(channel)) {
        ByteBuf own = ((NettyLoopThread) t).readBuffer(guess());
        if (own != null) {
          return own;
        }
      }
      return super.allocate(alloc);
    }
  }
}
