package io.weft.perf.heap;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.perf.heap.suspended.WaitAtDepth;
import io.weft.protocols.tester.LineTesterTask;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.VirtualThreads;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.mina.MinaConnector;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;

/**
 * Sessions waiting inside Weft's {@link SessionRunner}, in two flavours.
 *
 * <p>Net ({@link #continuations()}, {@link #virtualThreads()}): each session runs
 * {@link WaitAtDepth}, which waits {@code depth} frames down in {@code Suspend.await} without
 * touching its transport; every session shares one do-nothing transport. What is weighed is the
 * runner's per-session state (session context, for continuations the fiber, its suspended
 * continuation's saved frames and its wait), plus the wake-up each wait registered (kept in a
 * queue, as a transport would keep a listener). No transport, no server side.
 *
 * <p>Over the pipe ({@link #continuationsOverPipe()}, {@link #virtualThreadsOverPipe()}): each
 * session runs the tester ({@link LineTesterTask}, one exchange) over MINA's in-VM pipe against
 * an echo server in this JVM that holds its replies, so every session waits in its first read.
 * Weighed: all of the above plus both ends of a MINA pipe session, the transport's buffers and
 * the server's held reply: what a whole waiting session costs here. The depth option does not
 * apply (the read is where the tester waits).
 */
final class RunnerSessions implements ParkedSessions {
  private static final String TASK_PACKAGE = "io.weft.perf.heap.suspended";
  private static final String TESTER_PACKAGE = "io.weft.protocols.tester";
  private static final long ARRIVE_MINUTES = 5;

  private final String name;
  private final Mode mode;
  private final boolean overPipe;

  private RunnerSessions(String name, Mode mode, boolean overPipe) {
    this.name = name;
    this.mode = mode;
    this.overPipe = overPipe;
  }

  /** CONTINUATIONS: sessions suspended in CONTINUATIONS(1), net of any transport. */
  static RunnerSessions continuations() {
    return new RunnerSessions("CONTINUATIONS", Mode.continuations(1), false);
  }

  /** RUNNER_VIRTUAL_THREADS: the runner's VIRTUAL_THREADS mode, net of any transport. */
  static RunnerSessions virtualThreads() {
    return new RunnerSessions("RUNNER_VIRTUAL_THREADS", Mode.VIRTUAL_THREADS, false);
  }

  /** CONTINUATIONS_PIPE: CONTINUATIONS(1) sessions waiting for a reply over the pipe. */
  static RunnerSessions continuationsOverPipe() {
    return new RunnerSessions("CONTINUATIONS_PIPE", Mode.continuations(1), true);
  }

  /** VIRTUAL_THREADS_PIPE: the runner's VIRTUAL_THREADS sessions waiting over the pipe. */
  static RunnerSessions virtualThreadsOverPipe() {
    return new RunnerSessions("VIRTUAL_THREADS_PIPE", Mode.VIRTUAL_THREADS, true);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String unavailableReason() {
    return mode.kind() == Mode.Kind.VIRTUAL_THREADS ? VirtualThreads.unavailableReason() : null;
  }

  @Override
  public Parked park(int count, int depth) throws Exception {
    if (count < 1) {
      throw new IllegalArgumentException("count < 1: " + count);
    }
    if (depth < 1) {
      throw new IllegalArgumentException("depth < 1: " + depth);
    }
    return overPipe ? parkOverPipe(count) : parkNet(count, depth);
  }

  private Parked parkNet(int count, int depth) throws Exception {
    ConcurrentLinkedQueue<Runnable> wakeUps = new ConcurrentLinkedQueue<>();
    Connector connector = new SharedIdleTransport();
    // Unpaced: the figure is of the sessions, not of a connect ramp; the servers here listen deep.
    SessionRunner runner = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(mode).connector(connector)
        .address(new InetSocketAddress(0)).instrument(TASK_PACKAGE)
        // Its connect returns at once: nothing to suspend on, nothing that blocks a worker.
        .allowBlockingConnector(true).build();
    Running running = new Running(runner, connector, null);
    running.start(() -> runner.run(WaitAtDepth.class, count, depth,
        (java.util.function.Consumer<Runnable>) wakeUps::add));
    int waiting = running.awaitArrivals(count, wakeUps::size);
    return running.parked(waiting, () -> {
      Runnable wake;
      while ((wake = wakeUps.poll()) != null) {
        wake.run();
      }
    });
  }

  private Parked parkOverPipe(int count) throws Exception {
    EchoServer server = EchoServer.vmPipe();
    Connector connector = mode.kind() == Mode.Kind.CONTINUATIONS
        ? SuspendingMinaConnector.vmPipe() : MinaConnector.vmPipe();
    // Unpaced: the figure is of the sessions, not of a connect ramp; the servers here listen deep.
    SessionRunner runner = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(mode).connector(connector)
        .address(server.address()).timeout(Timeout.of(10, TimeUnit.MINUTES))
        .instrument(TESTER_PACKAGE).build();
    Running running = new Running(runner, connector, server);
    server.hold();
    long linesBefore = server.linesReceived();
    LongConsumer noLatency = start -> { };
    running.start(() -> runner.run(LineTesterTask.class, count, 1, noLatency));
    int waiting = running.awaitArrivals(count, () -> (int) (server.linesReceived() - linesBefore));
    return running.parked(waiting, server::release);
  }

  /** A run in the background, and what to close after it. */
  private static final class Running {
    final SessionRunner runner;
    final Connector connector;
    final EchoServer server;
    final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "heap-runner");
      t.setDaemon(true);
      return t;
    });
    Future<RunResult<?>> result;

    Running(SessionRunner runner, Connector connector, EchoServer server) {
      this.runner = runner;
      this.connector = connector;
      this.server = server;
    }

    void start(java.util.concurrent.Callable<RunResult<?>> run) {
      result = thread.submit(run);
    }

    /**
     * Sessions that end, when closed, once {@code release} has let them go; {@link #finish}
     * checks that every one of them succeeded.
     */
    Parked parked(int waiting, Runnable release) {
      return new Parked() {
        @Override
        public int waiting() {
          return waiting;
        }

        @Override
        public void close() throws Exception {
          release.run();
          finish(waiting);
        }
      };
    }

    /**
     * Waits until {@code arrived} reaches {@code count} and returns how many arrived. The last
     * session may still be on its way from registering its wake-up (or sending its line) to
     * suspending or blocking; the heap probe's full GCs that follow take far longer than that,
     * and were it not there yet, it would be one session of {@code count} measured short.
     */
    int awaitArrivals(int count, java.util.function.IntSupplier arrived) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(ARRIVE_MINUTES);
      while (arrived.getAsInt() < count) {
        if (result.isDone() || System.nanoTime() - deadline > 0) {
          String why = result.isDone() ? "the run ended: " + outcome() : "timed out";
          close();
          throw new IllegalStateException(arrived.getAsInt() + " of " + count
              + " sessions arrived; " + why);
        }
        Thread.sleep(1);
      }
      return arrived.getAsInt();
    }

    void finish(int count) throws Exception {
      try {
        RunResult<?> run = result.get(ARRIVE_MINUTES, TimeUnit.MINUTES);
        if (!run.allSucceeded() || run.sessions() != count) {
          throw new IllegalStateException("sessions failed: " + run.failures().subList(0,
              Math.min(3, run.failures().size())));
        }
      } finally {
        close();
      }
    }

    private String outcome() {
      try {
        return String.valueOf(result.get());
      } catch (InterruptedException | ExecutionException e) {
        return e.toString();
      }
    }

    void close() {
      try {
        runner.close();
      } finally {
        thread.shutdownNow();
        connector.close();
        if (server != null) {
          server.close();
        }
      }
    }
  }

  /** A connector whose connect hands every session the same idle transport at once. */
  private static final class SharedIdleTransport implements Connector {
    private final Transport idle = (Transport) Proxy.newProxyInstance(
        Transport.class.getClassLoader(), new Class<?>[] {Transport.class}, (proxy, method, args) -> {
          switch (method.getName()) {
            case "close":
              return null;
            case "isOpen":
              return Boolean.FALSE;
            case "timeout":
              return args == null ? Timeout.NONE : null;
            case "toString":
              return "idle transport";
            case "hashCode":
              return System.identityHashCode(proxy);
            case "equals":
              return proxy == args[0];
            default:
              throw new UnsupportedOperationException(method.getName() + " on the idle transport");
          }
        });

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) {
      return idle;
    }

    @Override
    public void close() {
    }
  }

  /** Every runner kind, in table order. */
  static List<ParkedSessions> all() {
    List<ParkedSessions> kinds = new ArrayList<>();
    kinds.add(continuations());
    kinds.add(virtualThreads());
    kinds.add(continuationsOverPipe());
    kinds.add(virtualThreadsOverPipe());
    return kinds;
  }
}
