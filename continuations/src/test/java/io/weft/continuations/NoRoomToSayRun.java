package io.weft.continuations;

import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.spi.HeapExhaustion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;

/**
 * For {@link NoRoomToSayTest}'s child JVM: a SYNC run whose one session fills the heap, reports
 * the heap's end (which aborts the run and gives back Weft's reserve), fills it again, and
 * returns, leaving the heap full to within a few bytes for the rest of the run: the run's thread
 * then has no room to gather the outcomes or to make the abort's exception. Once {@code run()}
 * has returned or thrown, the heap is given back and what it threw is printed; the run's close
 * wait, and so the abort's grace, is one second.
 */
public final class NoRoomToSayRun {
  /** The heap, held: a chain of nodes, so that holding more never needs a bigger array. */
  static volatile Object[] held;

  private NoRoomToSayRun() {}

  public static void main(String[] args) throws Exception {
    Object end;
    try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      SocketConnector connector = new SocketConnector();
      SessionRunner runner = SessionRunner.builder().mode(Mode.SYNC).connector(connector)
          .address(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()))
          .closeWait(1, TimeUnit.SECONDS).build();
      // Closed only once the heap is given back: a close needs room too.
      try {
        end = runner.run(Hoarder.class, 1);
      } catch (Throwable t) {
        end = t;
      }
      held = null;
      System.gc();
      runner.close();
      connector.close();
    }
    String said = end instanceof Throwable ? end.getClass().getName() + ": " + ((Throwable) end).getMessage()
        : "returned " + end;
    if (end instanceof RunAbortedException) {
      // The one made with the run has no frames; one made when it was thrown has some.
      said += " [frames " + ((Throwable) end).getStackTrace().length + ", result " + ((RunAbortedException) end).result() + "]";
    }
    System.out.println("run: " + said);
    System.exit(0);
  }

  /** Fills the heap, tells Weft it ran out, fills what that gave back, returns. */
  public static final class Hoarder implements SessionTask<Integer> {
    /**
     * Where the report says the error was met. A field assigned as the class loads, not a literal
     * at the call: a literal is made (interned) at its first use, which here is with the heap full;
     * as a literal, that threw {@code OutOfMemoryError} before the report was made, now and then
     * (load-dependent: whether a collection had freed a few bytes), and the session frame's report
     * of its transport's close told first ("met by a session closing its transport").
     */
    private static final String WHAT;

    static {
      WHAT = "a hoarding session";
    }

    @Override
    public Integer run(Transport transport, int index) {
      OutOfMemoryError e = fill();
      try {
        HeapExhaustion.report(e, WHAT);
      } catch (OutOfMemoryError again) {
        // Told or not, the heap is filled again below.
      }
      fill();
      return 0;
    }

    /** Holds pieces of smaller and smaller sizes until not even a node fits; returns the last error. */
    private static OutOfMemoryError fill() {
      OutOfMemoryError last = null;
      for (int size : new int[] {64 * 1024, 1024, 0}) {
        try {
          for (;;) {
            held = new Object[] {held, size == 0 ? null : new byte[size]};
          }
        } catch (OutOfMemoryError e) {
          last = e;
        }
      }
      return last;
    }
  }
}
