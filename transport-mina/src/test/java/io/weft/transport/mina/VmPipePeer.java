package io.weft.transport.mina;

import io.weft.transport.Peer;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.mina.core.buffer.IoBuffer;
import org.apache.mina.core.service.IoHandlerAdapter;
import org.apache.mina.core.session.AttributeKey;
import org.apache.mina.core.session.IoSession;
import org.apache.mina.transport.vmpipe.VmPipeAcceptor;
import org.apache.mina.transport.vmpipe.VmPipeAddress;

/**
 * A {@link Peer} on a real MINA {@link VmPipeAcceptor}, bound to a free in-VM port. The test
 * thread drives each accepted session. There is no TCP reset on the pipe: {@code reset()} is an
 * immediate close, and {@code close()} a close after pending writes.
 */
final class VmPipePeer implements Peer {
  private static final AttributeKey CONNECTION = new AttributeKey(VmPipePeer.class, "connection");

  private final VmPipeAcceptor acceptor = new VmPipeAcceptor();
  private final BlockingQueue<PipeConnection> accepted = new LinkedBlockingQueue<>();
  private final VmPipeAddress address;

  VmPipePeer() throws IOException {
    acceptor.setHandler(new IoHandlerAdapter() {
      @Override
      public void sessionCreated(IoSession session) {
        PipeConnection connection = new PipeConnection(session);
        session.setAttribute(CONNECTION, connection);
        accepted.add(connection);
      }

      @Override
      public void messageReceived(IoSession session, Object message) {
        ((PipeConnection) session.getAttribute(CONNECTION)).received((IoBuffer) message);
      }

      @Override
      public void sessionClosed(IoSession session) {
        ((PipeConnection) session.getAttribute(CONNECTION)).ended();
      }
    });
    acceptor.bind(new VmPipeAddress(0));
    address = acceptor.getLocalAddress();
  }

  @Override
  public SocketAddress address() {
    return address;
  }

  @Override
  public Connection accept(Duration timeout) throws IOException, InterruptedException {
    PipeConnection connection = accepted.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (connection == null) {
      throw new SocketTimeoutException("no connection within " + timeout);
    }
    return connection;
  }

  @Override
  public void close() {
    acceptor.unbind();
    acceptor.dispose(true);
  }

  static final class PipeConnection implements Connection {
    private final IoSession session;
    private final ByteArrayOutputStream in = new ByteArrayOutputStream();
    private int head;
    private boolean eof;

    PipeConnection(IoSession session) {
      this.session = session;
    }

    synchronized void received(IoBuffer buffer) {
      byte[] bytes = new byte[buffer.remaining()];
      buffer.get(bytes);
      in.write(bytes, 0, bytes.length);
      notifyAll();
    }

    synchronized void ended() {
      eof = true;
      notifyAll();
    }

    @Override
    public void send(byte[] bytes) throws IOException {
      if (!session.write(IoBuffer.wrap(bytes.clone())).awaitUninterruptibly(10_000)) {
        throw new IOException("peer write did not complete");
      }
    }

    @Override
    public void sendOneByteAtATime(byte[] bytes) throws IOException, InterruptedException {
      for (byte b : bytes) {
        send(new byte[] {b});
        // The behaviour under test: a peer that trickles. Nothing waits on this pause for ordering.
        Thread.sleep(1);
      }
    }

    @Override
    public synchronized String readLine(Duration timeout) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      for (;;) {
        byte[] all = in.toByteArray();
        for (int i = head; i < all.length; i++) {
          if (all[i] == '\n') {
            int end = i > head && all[i - 1] == '\r' ? i - 1 : i;
            String line = new String(all, head, end - head, StandardCharsets.UTF_8);
            head = i + 1;
            return line;
          }
        }
        if (eof) {
          if (all.length == head) {
            return null;
          }
          String rest = new String(all, head, all.length - head, StandardCharsets.UTF_8);
          head = all.length;
          return rest;
        }
        awaitMore(deadline);
      }
    }

    @Override
    public synchronized byte[] readBytes(int n, Duration timeout) throws IOException, InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      for (;;) {
        byte[] all = in.toByteArray();
        if (all.length - head >= n) {
          byte[] result = java.util.Arrays.copyOfRange(all, head, head + n);
          head += n;
          return result;
        }
        if (eof) {
          throw new EOFException("peer got " + (all.length - head) + " of " + n + " bytes");
        }
        awaitMore(deadline);
      }
    }

    private void awaitMore(long deadline) throws InterruptedException, InterruptedIOException {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new SocketTimeoutException("peer read timed out");
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }

    @Override
    public void close() {
      session.closeOnFlush();
    }

    @Override
    public void reset() {
      session.closeNow();
    }
  }
}
