package io.weft.protocols.isolation;

import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunAbortedException;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A run sized to exhaust a small heap, for {@link RunOutOfHeapTest}'s child JVM, in the mode
 * named by its argument (a {@link RunOutOfHeapTest.Case}). Three runs, each with a runner and a
 * connector of its own:
 * <ul>
 *   <li>the bystander: sessions that wait for a line their server never sends;
 *   <li>the hog, started once every bystander session is connected: sessions that wait for their
 *       server's "go" (sent once all of them are connected), then hold {@code HOG_BYTES} each in
 *       {@value #CHUNK}-byte pieces and wait for a line that never comes. Together they hold far
 *       more than the heap; the sessions that find no room fail with an {@code OutOfMemoryError}.
 *       In {@code SYNC}, one session at a time, a hog holds more than the heap by itself;
 *   <li>after both have ended: a small run against a server that answers, which must succeed.
 * </ul>
 * Without Weft's abort the hog and the bystander would wait for ever. Prints how each run ended
 * (with its outcomes by status) and exits as weft-load does: 3 if a run was aborted (its message
 * on standard error), 0 if not.
 */
public final class OutOfHeapRun {
  static final int CHUNK = 64 * 1024;
  static final int AFTER_SESSIONS = 8;
  private static final long CLOSE_WAIT_SECONDS = 30;
  /** Made as the class loads: a literal's first use allocates. */
  private static final String CONNECTOR_CLOSE_RAN_OUT = new StringBuilder("\n  (connector close ran out of heap)").toString();

  private OutOfHeapRun() {}

  public static void main(String[] args) throws Exception {
    RunOutOfHeapTest.Case c = RunOutOfHeapTest.Case.valueOf(args[0]);
    boolean sync = c.mode.kind() == Mode.Kind.SYNC;
    // SYNC runs one session at a time: one connection each; the rest are cancelled unstarted.
    int hogs = sync ? 3 : 600;
    int hogBytes = sync ? 1024 * 1024 * 1024 : 256 * 1024;
    int bystanders = sync ? 3 : 50;
    int bystandersConnected = sync ? 1 : bystanders;
    InetAddress loopback = InetAddress.getLoopbackAddress();
    boolean aborted = false;
    try (ServerSocket silent = new ServerSocket(0, 1024, loopback);
         ServerSocket gate = new ServerSocket(0, 1024, loopback);
         ServerSocket answering = new ServerSocket(0, 1024, loopback)) {
      CountDownLatch bystandersIn = new CountDownLatch(bystandersConnected);
      serve("silent-server", () -> HeapChild.holdOpen(silent, bystandersIn));
      serve("gate-server", () -> goOnceAllIn(gate, sync ? 1 : hogs));
      serve("answering-server", () -> answer(answering));

      // One instrumenting loader for the three runs: its analysis is made once, before the heap fills.
      ContinuationClassLoader loader = c.mode.kind() == Mode.Kind.CONTINUATIONS
          ? new ContinuationClassLoader(OutOfHeapRun.class.getClassLoader(), List.of(OutOfHeapRun.class.getPackageName()))
          : null;
      String[] bystanderEnd = new String[1];
      Thread bystander = new Thread(
          () -> bystanderEnd[0] = run("bystander", c, loader, silent, Waiter.class, bystanders), "bystander-run");
      bystander.start();
      bystandersIn.await();
      String hogEnd = run("hog", c, loader, gate, Hog.class, hogs, hogBytes);
      bystander.join();
      System.out.println(hogEnd);
      System.out.println(bystanderEnd[0]);
      aborted = hogEnd.contains("aborted") || bystanderEnd[0].contains("aborted");
      System.out.println(run("after", c, loader, answering, Hog.class, AFTER_SESSIONS, CHUNK));
    }
    System.exit(aborted ? 3 : 0);
  }

  /**
   * One run of {@code sessions} sessions of {@code task}, with a runner and connector of its own;
   * returns how it ended.
   */
  private static String run(String name, RunOutOfHeapTest.Case c, ContinuationClassLoader loader, ServerSocket server,
      Class<? extends SessionTask<Integer>> task, int sessions, Object... args) {
    Connector connector;
    try {
      connector = connector(c);
    } catch (Exception | OutOfMemoryError e) {
      return said(name, e);
    }
    Object end;
    try {
      SessionRunner.Builder builder = SessionRunner.builder().mode(c.mode).connector(connector)
          .address(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()))
          .closeWait(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)
          // Its servers answer late by design (the gate once every hog is in, the silent one never):
          // the connect window would hold the connects back, 1 s per window's worth.
          .connectWindow(0);
      if (loader != null) {
        builder.classLoader(loader);
      }
      try (SessionRunner runner = builder.build()) {
        end = runner.run(task, sessions, args);
      } catch (RunAbortedException e) {
        end = e;
      }
    } catch (Exception | OutOfMemoryError e) {
      end = e;
    }
    // The connector's close (MINA's dispose, Netty's shutdown) may itself run out of heap: that
    // adds a line, and the run's end stands (it replaced the end once, as "threw").
    boolean closeRanOut = false;
    try {
      connector.close();
    } catch (OutOfMemoryError e) {
      closeRanOut = true;
    } catch (Exception e) {
      // Not the run's end: the run has said how it ended.
    }
    String said = said(name, end);
    return closeRanOut ? said(said, CONNECTOR_CLOSE_RAN_OUT) : said;
  }

  /**
   * How a run ended, in words. This harness's own words need heap too, and the other run's
   * sessions may still be giving theirs back: a full collection, then again, a bounded number
   * of times (the first use of a literal allocates). No lambda and no {@code +} on strings on
   * this path ({@link #describe}, {@link #byStatus}): tests are compiled with
   * {@code invokedynamic} concatenation, and a call site first linked in a full heap fails for
   * good (a lambda's with {@code InternalError}, which killed the bystander's thread once here,
   * JDK 17: its line was "null").
   */
  private static String said(String name, Object end) {
    OutOfMemoryError last = null;
    for (int i = 0; i < 20; i++) {
      try {
        return describe(name, end);
      } catch (OutOfMemoryError e) {
        last = e;
        System.gc();
      }
    }
    throw last;
  }

  /** {@code said} and {@code more}, with {@link #said}'s retries. */
  private static String said(String said, String more) {
    for (int i = 0; i < 20; i++) {
      try {
        return new StringBuilder(said).append(more).toString();
      } catch (OutOfMemoryError e) {
        System.gc();
      }
    }
    return said;
  }

  private static String describe(String name, Object end) {
    StringBuilder said = new StringBuilder(name).append(": ");
    if (end instanceof RunAbortedException) {
      RunAbortedException e = (RunAbortedException) end;
      System.err.println(new StringBuilder(name).append(": ").append(e.getMessage()));
      if (e.getMessage().contains("had not ended")) {
        printSessionThreads();
      }
      return said.append("aborted, ").append(byStatus(e.result())).toString();
    }
    if (end instanceof RunResult) {
      return said.append("returned, ").append(byStatus((RunResult<?>) end)).toString();
    }
    said.append("threw ").append(end);
    if (end instanceof Throwable) {
      // Where it came from, for the test's failure message: Weft's run(), or this harness's own
      // steps around it (closing the connector, saying how the run ended).
      StackTraceElement[] stack = ((Throwable) end).getStackTrace();
      System.err.println(said);
      for (int i = 0; i < Math.min(stack.length, 12); i++) {
        System.err.println(new StringBuilder("    at ").append(stack[i]));
      }
    }
    return said.toString();
  }

  /** Where the session threads still alive are, for the test's failure message. */
  private static void printSessionThreads() {
    int shown = 0;
    for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
      if (e.getKey().getName().startsWith("weft-") && shown++ < 6) {
        System.err.println(new StringBuilder("still alive: ").append(e.getKey().getName()).append(' ')
            .append(e.getKey().getState()));
        StackTraceElement[] stack = e.getValue();
        for (int i = 0; i < Math.min(stack.length, 14); i++) {
          System.err.println(new StringBuilder("    at ").append(stack[i]));
        }
      }
    }
  }

  private static Connector connector(RunOutOfHeapTest.Case c) {
    switch (c) {
      case CONTINUATIONS_MINA:
        return SuspendingMinaConnector.tcp();
      case CONTINUATIONS_NETTY:
        return SuspendingNettyConnector.tcp();
      default:
        return new SocketConnector();
    }
  }

  private static String byStatus(RunResult<?> result) {
    if (result == null) {
      return "outcomes not gathered";
    }
    Map<Outcome.Status, Integer> counts = new TreeMap<>();
    Map<String, Integer> failures = new TreeMap<>();
    for (Outcome<?> outcome : result.outcomes()) {
      Integer n = counts.get(outcome.status());
      counts.put(outcome.status(), n == null ? 1 : n + 1);
      if (outcome.status() == Outcome.Status.FAILED) {
        Throwable failure = outcome.failure();
        // An OutOfMemoryError with its kind ("Java heap space"); anything else by its class.
        String kind = failure instanceof OutOfMemoryError ? failure.toString() : failure.getClass().getName();
        Integer f = failures.get(kind);
        failures.put(kind, f == null ? 1 : f + 1);
      }
    }
    // What the failed sessions met, on its own line: the test compares the first line as it is.
    StringBuilder said = new StringBuilder().append(result.outcomes().size()).append(" outcomes: ").append(counts);
    if (!failures.isEmpty()) {
      said.append("\n  failed with ").append(failures);
    }
    return said.toString();
  }

  private static void serve(String name, Runnable server) {
    Thread thread = new Thread(server, name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Accepts {@code count} connections, then tells them all to go; holds them open, says no more. */
  private static void goOnceAllIn(ServerSocket server, int count) {
    List<Socket> sockets = new ArrayList<>(count);
    try {
      while (sockets.size() < count) {
        sockets.add(server.accept());
      }
      byte[] go = "go\r\n".getBytes(StandardCharsets.US_ASCII);
      for (Socket socket : sockets) {
        OutputStream out = socket.getOutputStream();
        out.write(go);
        out.flush();
      }
      for (;;) {
        sockets.add(server.accept());
      }
    } catch (IOException e) {
      // Closed as the process ends.
    }
  }

  /** Tells every connection to go and then that it is over. */
  private static void answer(ServerSocket server) {
    List<Socket> sockets = new ArrayList<>();
    try {
      byte[] reply = "go\r\nend\r\n".getBytes(StandardCharsets.US_ASCII);
      for (;;) {
        Socket socket = server.accept();
        sockets.add(socket);
        socket.getOutputStream().write(reply);
        socket.getOutputStream().flush();
      }
    } catch (IOException e) {
      // Closed as the process ends.
    }
  }

  /** Waits for a line. */
  public static final class Waiter implements SessionTask<Integer> {
    @Override
    public Integer run(Transport transport, int index) throws IOException {
      return transport.readLineStrict(16).length();
    }
  }

  /** Waits for "go", holds {@code bytes} in {@link #CHUNK}-byte pieces, then waits for another line. */
  public static final class Hog implements SessionTask<Integer> {
    private final int bytes;

    public Hog(Integer bytes) {
      this.bytes = bytes;
    }

    @Override
    public Integer run(Transport transport, int index) throws IOException {
      transport.readLineStrict(16);
      List<byte[]> held = new ArrayList<>();
      for (long n = 0; n < bytes; n += CHUNK) {
        held.add(new byte[CHUNK]);
      }
      transport.readLineStrict(16);
      return held.size();
    }
  }
}
