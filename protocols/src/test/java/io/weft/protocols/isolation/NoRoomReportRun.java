package io.weft.protocols.isolation;

import io.weft.continuations.Mode;
import io.weft.continuations.SessionRunner;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.spi.HeapExhaustion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * For {@link NoRoomReportTest}'s child JVM: watches as a run does, fills the heap until not even
 * an empty array fits (HeapExhaustion's reserve still held, as when a thread first meets the
 * heap's end), then reports the last {@code OutOfMemoryError} as an I/O thread dying of it
 * would. Prints what the report did, once the heap is given back: "report: true, told: the
 * heap ran out (...)" if it told the watch; "report threw ..." if the report itself ran out of
 * heap. Exits 0 if the watch was told, 1 if not.
 *
 * <p>With the argument {@code session}: the same, but the heap is filled by a session's task (a
 * THREADS run of one session over a loopback socket), which then fails with the last error, so
 * the report is the one its {@code SessionFrame} makes on the session's failure path. Prints
 * "session ended, told: ..." (the first reason told) once the session's thread has ended (dead of
 * an error its failure path met, or done). Its own report says "met by a session on thread";
 * "met by a session closing its transport" is the report of its close, which comes after.
 */
public final class NoRoomReportRun {
  /** Where the report says the error was met; made before the heap fills (a literal's first use allocates). */
  private static final String WHAT;
  /** What the watch was told; written by the watch, with nothing allocated. */
  private static volatile String told;
  /** The heap, filled; let go before anything is printed. */
  private static Object[] held;

  static {
    WHAT = "the probe";
  }

  private NoRoomReportRun() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("session")) {
      session();
      return;
    }
    boolean reported = false;
    Throwable threw = null;
    try (HeapExhaustion.Watch watch = HeapExhaustion.watch(reason -> told = reason)) {
      OutOfMemoryError met = fillToTheLastByte();
      try {
        reported = HeapExhaustion.report(met, WHAT);
      } catch (Throwable e) {
        threw = e;
      }
      held = null;
    }
    System.out.println(threw != null ? "report threw " + threw : "report: " + reported + ", told: " + told);
    System.exit(told != null ? 0 : 1);
  }

  /** Lets go of what {@link #fillToTheLastByte} holds. */
  static void letGo() {
    held = null;
  }

  /** Keeps the first reason told: the session's own report must be it, not its close's. */
  private static void first(String reason) {
    if (told == null) {
      told = reason;
    }
  }

  /** The session's thread, set by {@link Filler} before it fills the heap. */
  private static volatile Thread sessionThread;
  /** Counted down by {@link Filler} once {@link #sessionThread} is set. */
  private static final CountDownLatch FILLING = new CountDownLatch(1);

  private static void session() throws Exception {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    try (ServerSocket server = new ServerSocket(0, 8, loopback);
         HeapExhaustion.Watch watch = HeapExhaustion.watch(NoRoomReportRun::first);
         SocketConnector connector = new SocketConnector();
         SessionRunner runner = SessionRunner.builder().mode(Mode.THREADS).connector(connector)
             .address(new InetSocketAddress(loopback, server.getLocalPort()))
             .closeWait(10, TimeUnit.SECONDS).build()) {
      Thread run = new Thread(() -> {
        try {
          runner.run(Filler.class, 1);
        } catch (Throwable e) {
          // Aborted, or out of heap itself: what is asked is whether the watch was told.
        }
      }, "run");
      run.setDaemon(true);
      run.start();
      if (!FILLING.await(60, TimeUnit.SECONDS)) {
        System.out.println("the session never began");
        System.exit(2);
      }
      // Allocates nothing: the session's thread ends once its failure path is through, or dies.
      sessionThread.join();
      held = null;
      System.out.println("session ended, told: " + told);
      System.exit(told != null ? 0 : 1);
    }
  }

  /** A session's task that fills the heap and fails with the last error. */
  public static final class Filler implements SessionTask<Integer> {
    @Override
    public Integer run(Transport transport, int index) {
      sessionThread = Thread.currentThread();
      FILLING.countDown();
      throw fillToTheLastByte();
    }
  }

  /**
   * Fills the heap into {@link #held}, a chain of arrays, each holding the one before (one
   * allocation a piece, nothing left unreachable), their length halved at each
   * {@code OutOfMemoryError} until not even an array of one fits; returns the last error.
   * Bounded: 18 lengths, each until the heap refuses it.
   */
  static OutOfMemoryError fillToTheLastByte() {
    int length = 1 << 17;
    for (;;) {
      try {
        Object[] piece = new Object[length];
        piece[0] = held;
        held = piece;
      } catch (OutOfMemoryError e) {
        if (length == 1) {
          return e;
        }
        length /= 2;
      }
    }
  }
}
