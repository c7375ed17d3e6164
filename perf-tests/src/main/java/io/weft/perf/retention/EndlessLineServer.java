package io.weft.perf.retention;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoAcceptor;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.socket.nio.NioSocketAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAddress;

/**
 * A peer that answers every connection with a line that never ends: 8 KiB chunks of 'x'.
 * Over TCP it sends the next chunk each time one has been written, for as long as the client
 * stays; the client's reading paces it. Over the in-VM pipe, where a write runs the client's
 * handler inline and has no pacing, it sends {@code pipeBytes} at once (make it more than the
 * client's line limit). Any number of connections at once; close it when done.
 */
final class EndlessLineServer implements AutoCloseable {
  private static final int CHUNK = 8 * 1024;

  private final IoAcceptor acceptor;
  private final SocketAddress address;

  private EndlessLineServer(IoAcceptor acceptor, SocketAddress address) {
    this.acceptor = acceptor;
    this.address = address;
  }

  static EndlessLineServer tcp() throws IOException {
    NioSocketAcceptor acceptor = new NioSocketAcceptor(1);
    acceptor.setReuseAddress(true);
    acceptor.setBacklog(1024);
    acceptor.setHandler(new Handler(true, 0));
    acceptor.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    return new EndlessLineServer(acceptor, acceptor.getLocalAddress());
  }

  static EndlessLineServer vmPipe(int pipeBytes) throws IOException {
    VmPipeAcceptor acceptor = new VmPipeAcceptor();
    acceptor.setHandler(new Handler(false, pipeBytes));
    for (int port = 7_100; ; port++) {
      try {
        acceptor.bind(new VmPipeAddress(port));
        return new EndlessLineServer(acceptor, new VmPipeAddress(port));
      } catch (IOException taken) {
        if (port > 7_200) {
          throw taken;
        }
      }
    }
  }

  SocketAddress address() {
    return address;
  }

  @Override
  public void close() {
    acceptor.unbind();
    acceptor.dispose(true);
  }

  private static final class Handler extends IoHandlerAdapter {
    private final byte[] chunk = new byte[CHUNK];
    private final boolean paced;
    private final int pipeBytes;

    Handler(boolean paced, int pipeBytes) {
      Arrays.fill(chunk, (byte) 'x');
      this.paced = paced;
      this.pipeBytes = pipeBytes;
    }

    @Override
    public void sessionOpened(IoSession session) {
      if (paced) {
        session.write(IoBuffer.wrap(chunk));
        return;
      }
      for (int sent = 0; sent < pipeBytes && session.isConnected(); sent += CHUNK) {
        session.write(IoBuffer.wrap(chunk));
      }
    }

    @Override
    public void messageSent(IoSession session, Object message) {
      if (paced && session.isConnected() && !session.isClosing()) {
        session.write(IoBuffer.wrap(chunk));
      }
    }

    @Override
    public void exceptionCaught(IoSession session, Throwable cause) {
      // The client closes in the middle of the line: that is the point.
      session.closeNow();
    }

    @Override
    public void inputClosed(IoSession session) {
      session.closeNow();
    }
  }
}
