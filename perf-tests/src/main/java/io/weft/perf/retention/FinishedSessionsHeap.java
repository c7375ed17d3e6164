package io.weft.perf.retention;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.perf.internal.HeapProbe;
import io.weft.perf.retention.task.EchoOnceSession;
import io.weft.perf.retention.task.EndlessLineSession;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.MinaConnector;
import java.lang.management.ManagementFactory;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import javax.management.JMException;
import javax.management.ObjectName;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * How much live heap finished sessions keep: one run of many sessions, weighed (live heap after
 * collecting until it settles) when the first checkpoint's worth of sessions have finished and
 * again when the last checkpoint's have. The session that reaches a checkpoint waits while the
 * heap is weighed, so the run, its results so far and its sessions in flight are all still
 * there; the difference between the two figures is what the sessions finished in between kept.
 *
 * <p>Per transport: {@code socket} (SocketConnector, THREADS), {@code mina} (MinaConnector TCP,
 * THREADS), {@code suspending-tcp} and {@code suspending-pipe} (SuspendingMinaConnector,
 * CONTINUATIONS(1)); per peer: {@code endless} (a line that never ends, read with a limit of
 * {@code lineLimit}, 256 KiB by default) and {@code echo} (one exchange).
 *
 * <pre>
 * ./mvnw -q -pl perf-tests -am -DskipTests -Pbenchmarks package
 * java -Xmx1g -cp perf-tests/target/benchmarks.jar io.weft.perf.retention.FinishedSessionsHeap \
 *     [--sessions 100000] [--first 1000] [--in-flight 50] [--line-limit 262144] \
 *     [--transports socket,mina,suspending-tcp,suspending-pipe] [--peers endless,echo]
 * </pre>
 */
public final class FinishedSessionsHeap {
  private static final String TASK_PACKAGE = "io.weft.perf.retention.task";
  private static final Timeout TIMEOUT = Timeout.of(30, TimeUnit.SECONDS);

  /** Set to true to print the live heap's largest classes at each weighing. */
  static final String HISTOGRAM_PROPERTY = "weft.heap.histogram";
  private static final int HISTOGRAM_LINES = 25;

  private FinishedSessionsHeap() {}

  /** The head of {@code jcmd GC.class_histogram} for this JVM, through its diagnostic MBean. */
  private static String histogram() {
    try {
      Object text = ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
          new Object[] {new String[0]}, new String[] {String[].class.getName()});
      String[] lines = String.valueOf(text).split("\n");
      return String.join("\n", Arrays.copyOf(lines, Math.min(lines.length, HISTOGRAM_LINES)));
    } catch (JMException e) {
      return "no histogram: " + e;
    }
  }

  /** The two weighings of one run. */
  public record Figures(String transport, String peer, int first, long firstBytes, int last,
      long lastBytes, int failed) {
    public double firstMiB() {
      return firstBytes / (1024.0 * 1024.0);
    }

    public double lastMiB() {
      return lastBytes / (1024.0 * 1024.0);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%-16s %-8s after %,7d: %7.1f MiB   after %,7d: %7.1f MiB   grew %+6.1f MiB   failed %d",
          transport, peer, first, firstMiB(), last, lastMiB(), lastMiB() - firstMiB(), failed);
    }
  }

  /** The command line. */
  @Command(name = "FinishedSessionsHeap", mixinStandardHelpOptions = true,
      description = "Live heap kept by finished sessions, per transport and peer.")
  static final class Options implements Callable<Integer> {
    @Option(names = "--sessions", defaultValue = "100000", description = "sessions per run (default ${DEFAULT-VALUE})")
    int sessions;
    @Option(names = "--first", defaultValue = "1000",
        description = "finished sessions at the first weighing (default ${DEFAULT-VALUE})")
    int first;
    @Option(names = "--in-flight", defaultValue = "50", description = "sessions at a time (default ${DEFAULT-VALUE})")
    int inFlight;
    @Option(names = "--line-limit", defaultValue = "262144",
        description = "the endless line's read limit in bytes (default ${DEFAULT-VALUE})")
    int lineLimit;
    @Option(names = "--transports", split = ",", defaultValue = "socket,mina,suspending-tcp,suspending-pipe",
        description = "transports to run (default ${DEFAULT-VALUE})")
    List<String> transports;
    @Option(names = "--peers", split = ",", defaultValue = "endless,echo",
        description = "peers to run (default ${DEFAULT-VALUE})")
    List<String> peers;
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      if (first < 1 || sessions - inFlight <= first || lineLimit < 1) {
        throw new ParameterException(spec.commandLine(),
            "need 1 <= --first < --sessions - --in-flight and --line-limit >= 1");
      }
      System.out.printf(Locale.ROOT, "live heap after GC with %d sessions in flight, JDK %s, -Xmx%d MiB%n",
          inFlight, Runtime.version(), Runtime.getRuntime().maxMemory() >> 20);
      for (String transport : transports) {
        for (String peer : peers) {
          System.out.println(measure(transport, peer, sessions, first, inFlight, lineLimit));
        }
      }
      return 0;
    }
  }

  public static void main(String[] args) {
    int code = new CommandLine(new Options()).execute(args);
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * Runs {@code sessions} sessions of {@code peer}'s task over {@code transport}, {@code inFlight}
   * at a time, and weighs the live heap when {@code first} and when {@code sessions - inFlight}
   * sessions have finished. The endless line is read with a limit of {@code lineLimit}.
   */
  public static Figures measure(String transport, String peer, int sessions, int first, int inFlight,
      int lineLimit) throws Exception {
    int last = sessions - inFlight;
    if (first < 1 || last <= first) {
      throw new IllegalArgumentException("need 1 <= first < sessions - inFlight: " + first + ", " + sessions);
    }
    boolean pipe = transport.endsWith("pipe");
    List<AutoCloseable> toClose = new ArrayList<>();
    try {
      SocketAddress address = startPeer(peer, pipe, lineLimit, toClose);
      Connector connector = connector(transport);
      toClose.add(0, connector);
      Mode mode = transport.startsWith("suspending") ? Mode.continuations(1) : Mode.THREADS;
      long[] weighed = new long[2];
      AtomicInteger finished = new AtomicInteger();
      IntConsumer checkpoint = index -> {
        int n = finished.incrementAndGet();
        if (n == first || n == last) {
          try {
            weighed[n == first ? 0 : 1] = HeapProbe.settledHeapUsed();
            if (Boolean.getBoolean(HISTOGRAM_PROPERTY)) {
              System.out.println("after " + n + " finished sessions:\n" + histogram());
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }
      };
      Class<? extends SessionTask<?>> task = peer.equals("endless") ? EndlessLineSession.class : EchoOnceSession.class;
      RunResult<?> result;
      // Unpaced: the figure is of the sessions, not of a connect ramp; the servers here listen deep.
      try (SessionRunner runner = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(mode).connector(connector).address(address)
          .timeout(TIMEOUT).maxInFlight(inFlight).instrument(TASK_PACKAGE).build()) {
        result = peer.equals("endless")
            ? runTask(runner, task, sessions, checkpoint, lineLimit) : runTask(runner, task, sessions, checkpoint);
      }
      int failed = sessions - finished.get();
      if (failed > 0) {
        System.err.println(transport + " " + peer + ": " + failed + " sessions failed; first: " + firstFailure(result));
      }
      return new Figures(transport, peer, first, weighed[0], last, weighed[1], failed);
    } finally {
      for (AutoCloseable c : toClose) {
        c.close();
      }
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static RunResult<?> runTask(SessionRunner runner, Class<? extends SessionTask<?>> task, int sessions,
      Object... args) throws InterruptedException {
    return runner.run((Class) task, sessions, args);
  }

  private static String firstFailure(RunResult<?> result) {
    return result.outcomes().stream().filter(o -> o.failure() != null).map(o -> String.valueOf(o.failure()))
        .findFirst().orElse("none recorded");
  }

  private static SocketAddress startPeer(String peer, boolean pipe, int lineLimit, List<AutoCloseable> toClose)
      throws Exception {
    switch (peer) {
      case "endless" -> {
        EndlessLineServer server = pipe
            ? EndlessLineServer.vmPipe(lineLimit + 64 * 1024) : EndlessLineServer.tcp();
        toClose.add(server);
        return server.address();
      }
      case "echo" -> {
        EchoServer server = pipe ? EchoServer.vmPipe() : EchoServer.tcp();
        toClose.add(server);
        return server.address();
      }
      default -> throw new IllegalArgumentException("unknown peer: " + peer + " (endless, echo)");
    }
  }

  private static Connector connector(String transport) {
    return switch (transport) {
      case "socket" -> new SocketConnector();
      case "mina" -> MinaConnector.tcp();
      case "suspending-tcp" -> SuspendingMinaConnector.tcp();
      case "suspending-pipe" -> SuspendingMinaConnector.vmPipe();
      default -> throw new IllegalArgumentException(
          "unknown transport: " + transport + " (socket, mina, suspending-tcp, suspending-pipe)");
    };
  }
}
