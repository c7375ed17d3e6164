package io.weft.protocols.isolation;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.SessionRunner;
import io.weft.transport.socket.SocketConnector;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A healthy JVM that is busy collecting, for {@link BusyConcurrentCollectorTest}'s child JVM (run
 * on a concurrent collector): a run of {@value #SESSIONS} sessions waits on a server while this
 * thread keeps {@value #HELD_PERCENT}% of the heap live and allocates {@value #ROUNDS} times the
 * heap's size of short-lived garbage in {@value #PIECE}-byte pieces, so that the collector's
 * concurrent cycles run back to back the whole time, with the heap in use mostly over 85%; every
 * cycle frees what was allocated since the last, so the heap is not running out. Then the server
 * sends each session its line and the run ends. Exits 0 if the run returned with every session
 * succeeded, 3 if it was aborted (its message on standard error), 1 otherwise.
 */
public final class BusyHeapRun {
  static final int SESSIONS = 10;
  static final int HELD_PERCENT = 72;
  static final int ROUNDS = 25;
  /**
   * The size of every piece, held or not: small for every collector (not a humongous object in
   * Shenandoah's regions, nor a medium one in ZGC's pages, which on a small heap would waste it).
   */
  static final int PIECE = 16 * 1024;
  private static final int MIB = 1024 * 1024;

  private BusyHeapRun() {}

  /** Written by the churn, so that no piece can be optimised away. */
  static volatile byte[] last;

  public static void main(String[] args) throws Exception {
    long max = Runtime.getRuntime().maxMemory();
    InetAddress loopback = InetAddress.getLoopbackAddress();
    String[] end = new String[1];
    List<Socket> accepted = new ArrayList<>();
    try (ServerSocket server = new ServerSocket(0, 64, loopback); SocketConnector connector = new SocketConnector()) {
      CountDownLatch connected = new CountDownLatch(SESSIONS);
      Thread acceptor = new Thread(() -> accept(server, accepted, connected), "acceptor");
      acceptor.setDaemon(true);
      acceptor.start();
      SessionRunner runner = SessionRunner.builder().mode(Mode.THREADS).connector(connector)
          .address(new InetSocketAddress(loopback, server.getLocalPort())).closeWait(30, TimeUnit.SECONDS).build();
      Thread run = new Thread(() -> end[0] = HeapChild.run(runner, SESSIONS, Outcome.Status.SUCCEEDED), "waiting-run");
      run.start();
      connected.await();
      List<byte[]> held = new ArrayList<>();
      for (long n = 0; n < max / 100 * HELD_PERCENT; n += PIECE) {
        held.add(new byte[PIECE]);
      }
      // Bounded: ROUNDS heaps' worth of pieces, each garbage once the next is made.
      long pieces = max / PIECE * ROUNDS;
      for (long i = 0; i < pieces; i++) {
        last = new byte[PIECE];
      }
      System.out.println("held " + held.size() * (long) PIECE / MIB + " MiB and allocated " + pieces * PIECE / MIB + " MiB more");
      held.clear();
      synchronized (accepted) {
        for (Socket socket : accepted) {
          try {
            OutputStream out = socket.getOutputStream();
            out.write("go\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
          } catch (IOException e) {
            // The session was aborted and its connection closed: the run's outcome says so.
          }
        }
      }
      run.join();
      System.out.println(end[0]);
      runner.close();
    }
    System.exit(end[0].startsWith("returned, " + SESSIONS + " outcomes, " + SESSIONS + " succeeded") ? 0
        : end[0].startsWith("aborted") ? 3 : 1);
  }

  private static void accept(ServerSocket server, List<Socket> accepted, CountDownLatch connected) {
    try {
      for (;;) {
        Socket socket = server.accept();
        synchronized (accepted) {
          accepted.add(socket);
        }
        connected.countDown();
      }
    } catch (IOException e) {
      // Closed as the process ends.
    }
  }
}
