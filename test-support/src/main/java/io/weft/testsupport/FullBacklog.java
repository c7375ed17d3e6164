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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A loopback listener whose accept queue is full (backlog 1: two connections the kernel accepted
 * and nobody takes), so the kernel drops every further SYN: a connect to it stays under way (its
 * socket in {@code SYN_SENT}, the kernel retrying its SYN at 1 s, 3 s, ...) until the test
 * {@linkplain #acceptFillers() takes the fillers}; the next retry then gets in, and the test can
 * {@linkplain #accept() accept} that connection.
 *
 * <p>"Full" is checked, not assumed: the constructor returns only once the listener's own line in
 * {@code /proc/net/tcp} (state {@code 0A}, LISTEN) shows its accept queue holding the two fillers
 * (for a listening socket the kernel prints the accept queue's length as {@code rx_queue}). A
 * filler's blocking connect can return before the listener has processed its final ACK (softirqs
 * deferred to ksoftirqd on a loaded machine, the thread moved to the other CPU); a SYN that came
 * then would be answered. Callers skip where {@link #canCheck()} is false.
 */
public final class FullBacklog implements AutoCloseable {
  /** Why a test skips where {@link #canCheck()} is false. */
  public static final String CANNOT_CHECK = "no readable /proc/net/tcp to check that the listener's accept queue is full";

  private static final String[] TABLES = {"/proc/net/tcp", "/proc/net/tcp6"};
  /** Connections in a full queue of backlog 1 (Linux drops SYNs once the queue holds more than its backlog). */
  private static final int FILLERS = 2;
  /** Hang guard of the wait for the queue to show full; it is the kernel's work of microseconds. */
  private static final long FULL_WITHIN_NANOS = TimeUnit.SECONDS.toNanos(30);

  /**
   * Whether this host has the tables a full queue is checked in ({@code /proc/net/tcp}, {@code
   * tcp6}); a test that uses a FullBacklog skips where it has not: {@code
   * assumeTrue(FullBacklog.canCheck(), FullBacklog.CANNOT_CHECK)}.
   */
  public static boolean canCheck() {
    return Files.isReadable(Path.of(TABLES[0]));
  }

  private final ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
  private final List<SocketChannel> fillers = new ArrayList<>();
  private final List<Socket> accepted = new ArrayList<>();

  /**
   * Listens and fills its queue; returns once the kernel shows the queue full.
   *
   * @throws IllegalStateException if {@link #canCheck() the tables cannot be read}, or the queue
   *     does not show both fillers within 30 s
   */
  public FullBacklog() throws IOException {
    if (!canCheck()) {
      server.close();
      throw new IllegalStateException(CANNOT_CHECK);
    }
    try {
      for (int i = 0; i < FILLERS; i++) {
        SocketChannel ch = SocketChannel.open();
        fillers.add(ch);
        ch.connect(address());
      }
      awaitFull();
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  /**
   * Polls the listener's line until its accept queue holds the fillers. There is no event to wait
   * on for the kernel's processing of an ACK, so this reads the kernel's state, bounded; between
   * reads it parks 50 µs rather than spinning, so that on a 2-core machine it leaves the CPU to the
   * ksoftirqd that is to do that processing. The park orders nothing: only the table's line ends it.
   */
  private void awaitFull() {
    long start = System.nanoTime();
    int queued;
    while ((queued = acceptQueue()) != FILLERS) {
      if (System.nanoTime() - start > FULL_WITHIN_NANOS) {
        throw new IllegalStateException("the accept queue of the listener on port " + port() + " holds " + queued
            + " connections, not " + FILLERS + ", 30 s after both fillers connected");
      }
      LockSupport.parkNanos(50_000L);
    }
  }

  /**
   * The length of this listener's accept queue, from its own line in the kernel's tables (local port
   * = {@link #port()}, state {@code 0A}: its {@code rx_queue}); -1 if there is no such line.
   */
  public int acceptQueue() {
    String local = String.format(Locale.ROOT, ":%04X", port());
    for (String[] f : lines()) {
      if (f.length > 4 && f[1].endsWith(local) && f[3].equals("0A")) {
        return Integer.parseInt(f[4].substring(f[4].indexOf(':') + 1), 16);
      }
    }
    return -1;
  }

  /** The kernel's TCP tables' socket lines, split into fields. */
  private static List<String[]> lines() {
    List<String[]> all = new ArrayList<>();
    for (String table : TABLES) {
      if (!table.equals(TABLES[0]) && !Files.exists(Path.of(table))) {
        continue; // no IPv6
      }
      try {
        for (String line : Files.readAllLines(Path.of(table))) {
          all.add(line.trim().split("\\s+"));
        }
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + table, e);
      }
    }
    return all;
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
    for (String[] f : lines()) {
      if (f.length > 3 && (f[2] + " ").endsWith(remote) && f[3].equals("02")) {
        n++;
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
