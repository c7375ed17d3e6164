package io.weft.load.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback line-echo server with one scripted fault: when it receives its
 * {@code freezeAtLine}-th line (counted over all connections) it stops replying for
 * {@code freezeMillis}, on every connection at once, and then answers everything held back.
 * A thread per connection; {@link #close()} ends them all. The server of {@code weft-load example co-demo}
 * and of the coordinated-omission test.
 */
public final class FreezingEchoServer implements AutoCloseable {
  private final ServerSocket server;
  private final long freezeAtLine;
  private final long freezeNanos;
  private final AtomicLong lines = new AtomicLong();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();
  private volatile long frozenUntil;
  private volatile boolean froze;

  public FreezingEchoServer(long freezeAtLine, long freezeMillis) throws IOException {
    this.freezeAtLine = freezeAtLine;
    this.freezeNanos = freezeMillis * 1_000_000L;
    this.server = new ServerSocket(0, 1000, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "freezing-echo-accept");
    acceptor.setDaemon(true);
    threads.add(acceptor);
    acceptor.start();
  }

  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  public String target() {
    return "127.0.0.1:" + address().getPort();
  }

  /** Whether the freeze happened. */
  public boolean froze() {
    return froze;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        sockets.add(s);
        Thread t = new Thread(() -> serve(s), "freezing-echo");
        t.setDaemon(true);
        threads.add(t);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      OutputStream out = s.getOutputStream();
      String line;
      while ((line = in.readLine()) != null) {
        if (lines.incrementAndGet() == freezeAtLine) {
          frozenUntil = System.nanoTime() + freezeNanos;
          froze = true;
        }
        long wait;
        while (froze && (wait = frozenUntil - System.nanoTime()) > 0) {
          // The scripted stall itself: this connection's reply is held until the freeze ends.
          Thread.sleep(wait / 1_000_000L, (int) (wait % 1_000_000L));
        }
        out.write((line + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException | InterruptedException e) {
      // The client went away or the server is closing.
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
    for (Thread t : threads) {
      t.join(10_000);
    }
  }
}
