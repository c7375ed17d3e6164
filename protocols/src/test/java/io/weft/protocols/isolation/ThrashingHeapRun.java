package io.weft.protocols.isolation;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.SessionRunner;
import io.weft.transport.socket.SocketConnector;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A JVM that collects nearly all the time and never throws, for {@link ThrashingHeapTest}'s
 * child JVM: a run of {@value #SESSIONS} sessions waits on a silent server while this thread
 * keeps {@value #HELD_PERCENT}% of the heap live and then, until the run ends, replaces the
 * pieces of a ring holding {@value #RING_PERCENT}% more, one {@value #PIECE}-byte piece at a time,
 * so that every collection finds the heap nearly full of live data and frees only the pieces
 * replaced since the last. The collectors' notifications are off (the test sets
 * {@code io.weft.transport.heapFullAfterCollectionPercent=0}), so only the time spent collecting
 * can tell. Exits 3 if the run was aborted (its message on standard error), 0 if it returned, 1
 * if it threw anything else.
 */
public final class ThrashingHeapRun {
  static final int SESSIONS = 20;
  static final int HELD_PERCENT = 78;
  static final int RING_PERCENT = 14;
  static final int PIECE = 16 * 1024;
  /** Pieces of the fill; each a MiB. */
  private static final int STEP = 1024 * 1024;

  private ThrashingHeapRun() {}

  /** Written by the churn, so that no piece can be optimised away. */
  static volatile byte[] last;

  public static void main(String[] args) throws Exception {
    long max = Runtime.getRuntime().maxMemory();
    InetAddress loopback = InetAddress.getLoopbackAddress();
    String[] end = new String[1];
    try (ServerSocket silent = new ServerSocket(0, 64, loopback); SocketConnector connector = new SocketConnector()) {
      CountDownLatch connected = new CountDownLatch(SESSIONS);
      Thread server = new Thread(() -> HeapChild.holdOpen(silent, connected), "silent-server");
      server.setDaemon(true);
      server.start();
      SessionRunner runner = SessionRunner.builder().mode(Mode.THREADS).connector(connector)
          .address(new InetSocketAddress(loopback, silent.getLocalPort())).closeWait(30, TimeUnit.SECONDS).build();
      Thread run = new Thread(() -> end[0] = HeapChild.run(runner, SESSIONS, Outcome.Status.CANCELLED), "waiting-run");
      run.start();
      connected.await();
      List<byte[]> held = new ArrayList<>();
      // Bounded by the heap: each step keeps a MiB, until the heap's use after a full collection
      // reaches the mark.
      for (int i = 0; i < max / STEP && used() < max / 100 * HELD_PERCENT; i++) {
        held.add(new byte[STEP]);
        if (i % 4 == 3) {
          System.gc();
        }
      }
      byte[][] ring = new byte[(int) (max / 100 * RING_PERCENT / PIECE)][];
      long replaced = 0;
      // Bounded by the run: it ends when the heap's end is told (or the test's watchdog kills
      // this JVM). An error here is this harness's, not Weft's: it lets the piece go and goes on.
      while (run.isAlive()) {
        int slot = (int) (replaced++ % ring.length);
        ring[slot] = null;
        try {
          ring[slot] = new byte[PIECE];
          last = ring[slot];
        } catch (OutOfMemoryError e) {
          // The ring stays a piece short.
        }
      }
      run.join();
      ring = null;
      held.clear();
      System.out.println("held " + (max / 100 * HELD_PERCENT / STEP) + " MiB and replaced " + replaced + " pieces");
      System.out.println(end[0]);
      runner.close();
    }
    System.exit(end[0].startsWith("aborted") ? 3 : end[0].startsWith("returned") ? 0 : 1);
  }

  private static long used() {
    System.gc();
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }
}
