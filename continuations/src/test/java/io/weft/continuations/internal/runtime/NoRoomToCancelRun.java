package io.weft.continuations.internal.runtime;

import io.weft.continuations.spi.SessionCancelledException;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.javaflow.core.StackRecorder;

/**
 * For {@link SessionFrameLateTest}'s child JVM: the frame of a session cancelled before it
 * connects, the first slice of a fiber cancelled before it started, and the exception a cancelled
 * fiber's woken wait throws ({@code Fiber.cancelledException}), run with the heap full to
 * within a few bytes, so that they have no room to make the session's own
 * {@link SessionCancelledException}. Its failure must be the one made ahead (as a
 * run makes it), not the {@link OutOfMemoryError}. Prints what the session ended with once the
 * heap is given back. A try in which the frame found room after all (a few bytes freed) is made
 * again after filling the heap again, at most {@value #TRIES} times.
 */
public final class NoRoomToCancelRun {
  private static final int TRIES = 5;
  /** The heap, held: a chain of nodes, so that holding more never needs a bigger array. */
  static volatile Object[] held;

  private NoRoomToCancelRun() {}

  /** Counts connects, and connects nothing. */
  static final class NoConnects implements Connector {
    final AtomicInteger connects = new AtomicInteger();

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) throws IOException {
      connects.incrementAndGet();
      throw new IOException("no connect here");
    }

    @Override
    public void close() {
      // Nothing held.
    }
  }

  /** Never runs: the session is cancelled before it connects. */
  public static final class Never implements SessionTask<String> {
    @Override
    public String run(Transport transport, int index) {
      return "ran";
    }
  }

  public static void main(String[] args) {
    NoConnects connector = new NoConnects();
    SocketAddress address = InetSocketAddress.createUnresolved("no-room", 1);
    SessionCancelledException madeAhead = new SessionCancelledException("made ahead by its run");
    // Once with room: every class and call of the frame's path is loaded and linked now.
    SessionContext warm = new SessionContext(1, connector, address, Timeout.NONE, new Never());
    warm.cancelledWithNoRoom(madeAhead);
    warm.cancel();
    new SessionFrame(warm).run();
    StackRecorder.get();
    SessionContext c = null;
    boolean filled = false;
    for (int i = 0; i < TRIES && !filled; i++) {
      c = new SessionContext(0, connector, address, Timeout.NONE, new Never());
      c.cancelledWithNoRoom(madeAhead);
      c.cancel();
      SessionFrame frame = new SessionFrame(c);
      fill();
      frame.run();
      held = null;
      // Room found after all: the session's own exception. Again.
      filled = !(c.failure() instanceof SessionCancelledException)
          || !c.failure().getMessage().equals("session 0 cancelled before it connected");
    }
    // The same for a fiber cancelled before its first slice (a CONTINUATIONS session never
    // started): its slice ends it at once, cancelled.
    Scheduler scheduler = new Scheduler(1, 0, "no-room-to-cancel");
    Fiber warmFiber = new Fiber(2, connector, address, Timeout.NONE, new Never(), scheduler, false);
    warmFiber.cancelledWithNoRoom(madeAhead);
    warmFiber.cancel();
    warmFiber.runSlice();
    Fiber fiber = null;
    boolean fiberFilled = false;
    for (int i = 0; i < TRIES && !fiberFilled; i++) {
      fiber = new Fiber(3, connector, address, Timeout.NONE, new Never(), scheduler, false);
      fiber.cancelledWithNoRoom(madeAhead);
      fiber.cancel();
      fill();
      fiber.runSlice();
      held = null;
      fiberFilled = !(fiber.failure() instanceof SessionCancelledException)
          || !fiber.failure().getMessage().equals("session 3 cancelled");
    }
    // The exception a cancelled fiber's wait throws as it is woken (Wait.result, Fiber.arm), with
    // no room for its own: the one made ahead, not the error; here with a run's words.
    Fiber woken = new Fiber(4, connector, address, Timeout.NONE, new Never(), scheduler, false);
    woken.cancelledWithNoRoom(new SessionCancelledException(SessionContext.CANCELLED_WITH_NO_ROOM));
    Throwable wokenWith = woken.cancelledException();
    boolean wokenFilled = false;
    for (int i = 0; i < TRIES && !wokenFilled; i++) {
      fill();
      try {
        wokenWith = woken.cancelledException();
      } catch (OutOfMemoryError e) {
        wokenWith = e;
      }
      held = null;
      wokenFilled = !(wokenWith instanceof SessionCancelledException)
          || !wokenWith.getMessage().equals("session 4 cancelled");
    }
    System.gc();
    System.out.println("woken filled: " + wokenFilled);
    System.out.println("woken failure: " + wokenWith.getClass().getName() + ": " + wokenWith.getMessage());
    System.out.println("warm: " + warm.failure().getMessage());
    System.out.println("warm fiber: " + warmFiber.failure().getMessage());
    System.out.println("fiber filled: " + fiberFilled);
    System.out.println("fiber failure: " + fiber.failure().getMessage());
    System.out.println("filled: " + filled);
    System.out.println("connects: " + connector.connects.get());
    System.out.println("cancelled: " + c.isCancelled());
    System.out.println("failure: " + c.failure().getMessage());
    System.out.println("failure class: " + c.failure().getClass().getName());
    System.exit(0);
  }

  /** Holds pieces of smaller and smaller sizes until not even a node fits. */
  private static void fill() {
    for (int size : new int[] {64 * 1024, 1024, 0}) {
      try {
        for (;;) {
          held = new Object[] {held, size == 0 ? null : new byte[size]};
        }
      } catch (OutOfMemoryError e) {
        // The next, smaller size.
      }
    }
  }
}
