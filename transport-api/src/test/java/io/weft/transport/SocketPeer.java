package io.weft.transport;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;

/** A {@link Peer} on a real loopback {@link ServerSocket}. */
public final class SocketPeer implements Peer {
  private final ServerSocket server;

  public SocketPeer() throws IOException {
    server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
  }

  @Override
  public SocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  @Override
  public Connection accept(Duration timeout) throws IOException {
    server.setSoTimeout((int) timeout.toMillis());
    Socket socket = server.accept();
    socket.setTcpNoDelay(true);
    return new SocketConnection(socket);
  }

  @Override
  public void close() throws IOException {
    server.close();
  }

  static final class SocketConnection implements Connection {
    /** The trickling peer's pause between bytes. */
    static final long TRICKLE_PAUSE_MILLIS = 1;

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    SocketConnection(Socket socket) throws IOException {
      this.socket = socket;
      this.in = socket.getInputStream();
      this.out = socket.getOutputStream();
    }

    @Override
    public void send(byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
    }

    @Override
    public void sendOneByteAtATime(byte[] bytes) throws IOException, InterruptedException {
      for (byte b : bytes) {
        out.write(b);
        out.flush();
        // The behaviour under test: a peer that trickles, so each byte tends to arrive in a
        // segment of its own. Nothing waits on this pause for ordering.
        Thread.sleep(TRICKLE_PAUSE_MILLIS);
      }
    }

    @Override
    public String readLine(Duration timeout) throws IOException {
      socket.setSoTimeout((int) timeout.toMillis());
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      for (;;) {
        int b = in.read();
        if (b < 0) {
          return line.size() == 0 ? null : line.toString("UTF-8");
        }
        if (b == '\n') {
          byte[] bytes = line.toByteArray();
          int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
          return new String(bytes, 0, n, "UTF-8");
        }
        line.write(b);
      }
    }

    @Override
    public byte[] readBytes(int n, Duration timeout) throws IOException {
      socket.setSoTimeout((int) timeout.toMillis());
      try {
        byte[] bytes = in.readNBytes(n);
        if (bytes.length < n) {
          throw new EOFException("peer got " + bytes.length + " of " + n + " bytes");
        }
        return bytes;
      } catch (SocketTimeoutException e) {
        throw e;
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }

    @Override
    public void reset() throws IOException {
      socket.setSoLinger(true, 0);
      socket.close();
    }
  }
}
