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
 * For {@link HeapFullAfterCollectionTest}'s child JVM: a run of sessions waiting on a server that
 * never answers, while the main thread fills the heap a step at a time, each step followed by a
 * full collection ({@code System.gc()}), until one leaves the heap over the threshold; then it
 * holds what it made and waits for the run to end. Nothing here runs out of heap: only the
 * collection watch can end the run. Prints how the run ended and exits 3 if it was aborted, 0 if
 * not.
 */
public final class FullHeapRun {
  static final int SESSIONS = 20;
  /** The threshold the test sets ({@code io.weft.transport.heapFullAfterCollectionPercent}). */
  static final int PERCENT = 80;

  private FullHeapRun() {}

  public static void main(String[] args) throws Exception {
    long threshold = Runtime.getRuntime().maxMemory() / 100 * PERCENT;
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
      // Bounded by the heap: each step keeps what it made, so the threshold is crossed long
      // before the heap is full.
      int steps = LateNoticeRun.fillUntilOverThreshold(held, LateNoticeRun.heapPools(), threshold);
      run.join();
      System.out.println("filled " + steps + " steps of 1 MiB, " + held.size() + " pieces held");
      System.out.println(end[0]);
      held.clear();
      runner.close();
    }
    System.exit(end[0].startsWith("aborted") ? 3 : 0);
  }
}
