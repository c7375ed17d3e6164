package io.weft.testsupport;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A loopback listener whose accept queue is full (backlog 1: two connections the kernel accepted
 * and nobody takes), so the kernel drops every further SYN: a connect to it stays under way (its
 * socket in {@code SYN_SENT}, the kernel retrying its SYN at 1 s, 3 s, ...) until the test
 * {@linkplain #acceptFillers() takes the fillers}; the next retry then gets in, and the test can
 * {@linkplain #accept() accept} that connection.
 */
public final class FullBacklog implements AutoCloseable {
  private final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
  private final List<SocketChannel> fillers = new ArrayList<>();
  private final List<Socket> accepted = new ArrayList<>();

  /** Listens and fills its queue. */
  public FullBacklog() throws IOException {
    for (int i = 0; i < 2; i++) {
      SocketChannel ch = SocketChannel.open();
      fillers.add(ch);
      ch.connect(address());
    }
  }

  /** Where it listens. */
  public InetSocketAddress address() {
    return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
  }

  /** Its port. */
  public int port() {
    return server.getLocalPort();
  }

  /** Accepts the two connections that fill the queue: a connect under way gets in at its SYN's next retry. */
  public void acceptFillers() throws IOException {
    for (int i = 0; i < 2; i++) {
      accepted.add(server.accept());
    }
  }

  /** Accepts the next connection (after {@link #acceptFillers()}: a connect that was under way), blocking. */
  public Socket accept() throws IOException {
    Socket s = server.accept();
    accepted.add(s);
    return s;
  }

  /** Sockets in the kernel's table in state {@code SYN_SENT} to this listener's port, on this host. */
  public int synSent() {
    String remote = String.format(Locale.ROOT, ":%04X ", port());
    int n = 0;
    for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
      try {
        for (String line : Files.readAllLines(Path.of(table))) {
          String[] f = line.trim().split("\\s+");
          if (f.length > 3 && (f[2] + " ").endsWith(remote) && f[3].equals("02")) {
            n++;
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + table, e);
      }
    }
    return n;
  }

  @Override
  public void close() throws IOException {
    for (Socket s : accepted) {
      s.close();
    }
    for (SocketChannel ch : fillers) {
      ch.close();
    }
    server.close();
  }
}
