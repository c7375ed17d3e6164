package io.weft.transport.mina;

import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.TlsSettings;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.ConnectorBuilder;
import io.weft.transport.spi.ConnectorCore;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.Ticker;
import io.weft.transport.spi.Tls;
import io.weft.transport.mina.internal.IoThreads;
import io.weft.transport.mina.internal.MinaIoThread;
import io.weft.transport.mina.internal.NioProcessor;
import io.weft.transport.mina.internal.ThreadCounts;
import io.weft.transport.mina.internal.SessionState;
import io.weft.transport.mina.internal.SessionStateHandler;
import io.weft.transport.mina.internal.SessionStructures;
import io.weft.transport.mina.internal.TlsFilter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import org.apache.mina.core.RuntimeIoException;
import org.apache.mina.core.future.ConnectFuture;
import org.apache.mina.core.future.IoFuture;
import org.apache.mina.core.service.IoConnector;
import org.apache.mina.core.service.IoProcessor;
import org.apache.mina.core.service.SimpleIoProcessorPool;
import org.apache.mina.core.session.IoSessionInitializer;
import org.apache.mina.transport.socket.nio.NioSession;
import org.apache.mina.transport.socket.nio.NioSocketConnector;
import org.apache.mina.transport.vmpipe.VmPipeAddress;
import org.apache.mina.transport.vmpipe.VmPipeConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens {@link MinaTransport}s over one MINA connector: a {@link NioSocketConnector} for TCP
 * ({@link InetSocketAddress}) or a {@link VmPipeConnector} for the in-VM pipe
 * ({@link VmPipeAddress}). One connector serves any number of sessions at once.
 *
 * <p>The connector owns its threads (daemon threads, so a forgotten connector does not keep the
 * JVM alive). {@link #close()} closes every transport still open, disposes MINA and waits, for a
 * bounded time, until those threads have ended; called on a MINA I/O thread it cannot wait, and
 * hands the disposal to a new thread instead.
 *
 * <p>Built with {@link Builder#tls(TlsSettings)}, every connect also does a TLS handshake over
 * MINA's {@code SslFilter} before it returns (implicit TLS); TCP only.
 *
 * <pre>{@code
 * try (MinaConnector connector = MinaConnector.tcp()) {
 *   Transport transport = connector.connect(address, Timeout.of(5, SECONDS));
 *   ...
 * }
 * }</pre>
 */
public final class MinaConnector implements Connector, Clocked {
  private static final Logger LOG = LoggerFactory.getLogger(MinaConnector.class);
  private static final AtomicInteger IDS = new AtomicInteger();
  private static final long DISPOSE_WAIT_SECONDS = 10L;
  /** MINA's own connect timeout; ours, per connect, is the Timeout. A day means "never". */
  private static final long MINA_CONNECT_TIMEOUT_MILLIS = TimeUnit.DAYS.toMillis(1);

  private final IoConnector connector;
  private final IoProcessor<NioSession> processors;
  /** The processors of {@link #processors}, in the order MINA's pool made them; empty for the in-VM pipe. */
  private final NioProcessor[] loops;
  /**
   * Whether a connect made off this connector's processors is handed to one of them (see
   * Core.connect) rather than to MINA's connector: for the continuation connector over TCP, when
   * MINA's pool made its processors here (so {@link #loops} is not empty) and they can take
   * connects from elsewhere. Decided once, in the constructor.
   */
  private final boolean connectsOnLoops;
  /** The next of {@link #loops} a connect made off them is handed to: round-robin. */
  private final AtomicInteger nextLoop = new AtomicInteger();
  private final ExecutorService threads;
  private final boolean vmPipe;
  private final int processorCount;
  private final int inboundLimit;
  private final Core core;
  /** Counters this connector's own threads keep in slots of their own (see ThreadCounts). */
  private final ThreadCounts counts = new ThreadCounts();
  /**
   * Why this connector is broken when there was no room to say more, and where its thread met
   * the heap's end. Not constants, so that their literals are made as the class loads: a
   * literal's first use may allocate it, and here that is when the heap has run out.
   */
  private static final String THREAD_DIED;
  private static final String DIES;

  static {
    THREAD_DIED = "a MINA thread died";
    DIES = "a MINA thread, which dies of it";
  }

  /** Connects made on the processor that runs the connecting session (see Core.startConnect). */
  private final ThreadCounts.Counter loopConnects = counts.counter(3);
  /** Connects made off the processors and handed to one of them (see Core.connect). */
  private final LongAdder handedConnects = new LongAdder();

  /** Why this connector can no longer serve: one of its threads died. Null while it can. */
  private volatile String broken;

  private MinaConnector(TlsSettings tls, int inboundLimit, int processorCount, boolean vmPipe, Ticker ticker,
      boolean connectsOnLoops) {
    this.vmPipe = vmPipe;
    this.processorCount = vmPipe ? 0 : processorCount;
    this.inboundLimit = inboundLimit;
    if (vmPipe && tls != null) {
      throw new IllegalStateException("TLS needs TCP; the in-VM pipe has no host to verify");
    }
    this.core = new Core(tls, ticker);
    int id = IDS.incrementAndGet();
    this.threads = Executors.newCachedThreadPool(daemonThreads("weft-mina-" + id + "-", this::threadDied, counts));
    if (vmPipe) {
      this.processors = null;
      this.loops = new NioProcessor[0];
      this.connector = new VmPipeConnector(threads);
    } else {
      List<NioProcessor> made = new ArrayList<>();
      this.processors = NioProcessor.collecting(made,
          () -> new SimpleIoProcessorPool<>(NioProcessor.class, threads, processorCount, null));
      this.loops = made.toArray(new NioProcessor[0]);
      NioSocketConnector nio = new NioSocketConnector(threads, processors);
      nio.getSessionConfig().setTcpNoDelay(true);
      this.connector = nio;
    }
    this.connectsOnLoops = connectsOnLoops && !vmPipe && loops.length > 0 && loops[0].canConnectFromElsewhere();
    connector.setConnectTimeoutMillis(MINA_CONNECT_TIMEOUT_MILLIS);
    connector.setHandler(new SessionStateHandler());
    connector.setSessionDataStructureFactory(new SessionStructures());
  }

  /**
   * The number of NIO processor threads this connector runs (the size of its processor pool,
   * whose threads start with their first session): 0 for the in-VM pipe, which has none.
   *
   * @return its processor count
   */
  public int processorCount() {
    return processorCount;
  }

  /**
   * A TCP connector with default options.
   *
   * @return a new connector, which the caller closes
   */
  public static MinaConnector tcp() {
    return builder().tcp();
  }

  /**
   * An in-VM pipe connector with default options.
   *
   * @return a new connector, which the caller closes
   */
  public static MinaConnector vmPipe() {
    return builder().vmPipe();
  }

  /**
   * Options for a connector.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Connects to {@code remote}: an {@link InetSocketAddress} for a TCP connector, a
   * {@link VmPipeAddress} for an in-VM one.
   *
   * @throws IllegalArgumentException if {@code remote} is of the wrong kind
   * @throws IllegalStateException if called on a MINA I/O thread
   */
  @Override
  public MinaTransport connect(SocketAddress remote, Timeout timeout) throws IOException {
    return core.connect(remote, timeout, (state, t, start, forget, address) ->
        new MinaTransport(state, t, start, forget, address, core.blockingWaits()));
  }

  /** The steps of a connect and the live set, for the continuation connector, which waits its own way. */
  Core core() {
    return core;
  }

  /**
   * The clock of this connector's connects, waits and session deadlines, set by
   * {@link io.weft.transport.spi.ConnectorBuilder#ticker}.
   *
   * @return the clock
   */
  @Override
  public Ticker ticker() {
    return core.blockingWaits().ticker();
  }

  /** The connector skeleton, filled in with MINA's connect, its future and its disposal. */
  final class Core extends ConnectorCore<IoFuture, SessionState> {
    Core(TlsSettings tls, Ticker ticker) {
      super(tls, ticker);
    }

    @Override
    protected void checkAddress(SocketAddress remote) {
      if (vmPipe && !(remote instanceof VmPipeAddress)) {
        throw new IllegalArgumentException("not a VmPipeAddress: " + remote);
      }
      if (!vmPipe && !(remote instanceof InetSocketAddress)) {
        throw new IllegalArgumentException("not an InetSocketAddress: " + remote);
      }
    }

    @Override
    protected SessionState newState() {
      return new SessionState(inboundLimit);
    }

    @Override
    protected String broken() {
      return broken;
    }

    /**
     * Issues the MINA connect; the session is attached to {@code state} before any event, and
     * with TLS the filter is in its chain, to start the handshake when the session opens.
     */
    @Override
    public IoFuture startConnect(SocketAddress remote, SessionState state) {
      TlsSettings tls = tls().orElse(null);
      if (tls == null) {
        return connect(remote, (session, future) -> state.attach(session));
      }
      String host = Tls.hostName(tls, remote);
      int port = Tls.port(remote);
      return connect(remote, (session, future) -> {
        state.attach(session);
        try {
          state.beginTls(session, false);
        } catch (IOException e) {
          // The state was closed first: attach has closed the session already.
          return;
        }
        session.getFilterChain().addFirst(TlsFilter.NAME, new TlsFilter(tls, host, port, false));
      });
    }

    /**
     * A connect made by a session that runs on one of this connector's processors, inside its
     * loop (a continuation resumed there: the runner starts the next session where the last one
     * ended), is watched by that processor's own selector and finished on its thread (see
     * {@link NioProcessor#connectHere}); MINA's connector thread, with its selector, its sleeps
     * and wake-ups, takes no part, and the session stays on the thread that runs it. On the
     * continuation connector a connect made on any other thread (a worker starting a run's first
     * sessions, a caller's own thread) is handed to one of the processors, round-robin, and made
     * and finished on its loop the same way (see {@link NioProcessor#connectFromElsewhere}): one
     * wake-up of that loop per batch, where MINA's connector took two thread hops with a wake-up
     * each per connect. Every other connect (the in-VM pipe, the blocking connector off its
     * processors, a connector being disposed, a MINA this was not checked against) is MINA's.
     */
    private ConnectFuture connect(SocketAddress remote, IoSessionInitializer<ConnectFuture> initializer) {
      if (!vmPipe) {
        NioProcessor loop = IoThreads.runningLoop();
        if (loop != null && loop.runsOn(threads) && loop.canConnectHere()) {
          loopConnects.increment();
          return loop.connectHere((NioSocketConnector) connector, remote, initializer);
        }
        if (connectsOnLoops && !connector.isDisposing()) {
          handedConnects.increment();
          return nextLoop().connectFromElsewhere((NioSocketConnector) connector, remote, initializer);
        }
      }
      return connector.connect(remote, initializer);
    }

    /** The processor the next connect made off the processors goes to: round-robin over them. */
    private NioProcessor nextLoop() {
      NioProcessor[] all = loops;
      return all.length == 1 ? all[0] : all[Math.floorMod(nextLoop.getAndIncrement(), all.length)];
    }

    @Override
    protected boolean isConnected(IoFuture future) {
      return ((ConnectFuture) future).isConnected();
    }

    @Override
    protected Throwable connectCause(IoFuture future) {
      Throwable cause = ((ConnectFuture) future).getException();
      if (cause instanceof RuntimeIoException && cause.getCause() instanceof IOException) {
        cause = cause.getCause();
      }
      return cause;
    }

    @Override
    public void cancelConnect(IoFuture future) {
      ((ConnectFuture) future).cancel();
    }

    @Override
    protected void shutdown() {
      if (IoThreads.isIoThread() || broken != null) {
        // Disposing waits for the I/O threads, this one among them: let another thread do it.
        // MINA's disposal of a processor whose thread died waits for that thread for ever, so
        // a broken connector does not wait either: its disposer, a daemon, may never end.
        Thread disposer = new Thread(MinaConnector.this::dispose, "weft-mina-dispose");
        disposer.setDaemon(true);
        disposer.start();
      } else {
        dispose();
      }
    }
  }

  /**
   * The TLS settings every connect uses.
   *
   * @return the settings, or empty for plaintext
   */
  public Optional<TlsSettings> tls() {
    return core.tls();
  }

  /**
   * Messages written through MINA's own write path (its queue and its processor's flush) for this
   * connector's sessions, from MINA's statistics; a write made inline on a session's own
   * processor never reaches that path. For tests.
   */
  long writtenThroughMina() {
    return connector.getStatistics().getWrittenMessages();
  }

  /** MINA's connector under this one (its filter chain builder, its listeners). For tests of this package. */
  IoConnector service() {
    return connector;
  }

  /**
   * Connects made on the processor that runs the connecting session, its selector watching them
   * (not MINA's connector thread). For tests.
   */
  long loopConnects() {
    return loopConnects.sum();
  }

  /**
   * Connects made off the processors and handed to one of them, made and finished on its loop
   * (not MINA's connector thread). For tests.
   */
  long handedConnects() {
    return handedConnects.sum();
  }

  /** The counters of waits on this connector's transports, counted per thread. */
  ThreadCounts counts() {
    return counts;
  }

  /**
   * How many transports this connector opened that are still open (or connecting).
   *
   * @return the number of open transports
   */
  public int openCount() {
    return core.openCount();
  }

  /**
   * Closes every transport still open, disposes MINA and waits (up to 10 s) for its threads to
   * end. A second call does nothing.
   */
  @Override
  public void close() {
    core.close();
  }

  private void dispose() {
    try {
      connector.dispose(true);
      if (processors != null) {
        processors.dispose();
      }
    } finally {
      threads.shutdown();
      try {
        if (!threads.awaitTermination(DISPOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
          LOG.warn("MINA threads still running {} s after the connector was closed", DISPOSE_WAIT_SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * True once {@link #close()} has been called.
   *
   * @return true if the connector is closed
   */
  public boolean isClosed() {
    return core.isClosed();
  }

  @Override
  public String toString() {
    return "MinaConnector{" + (vmPipe ? "vm-pipe" : "tcp") + ", open=" + core.openCount()
        + (core.isClosed() ? ", closed" : "") + "}";
  }

  /**
   * One of this connector's threads (an I/O processor, MINA's connect or pipe thread) ended by
   * an exception or an error, an {@code OutOfMemoryError} say: the sessions it served would never
   * hear from it again. Fail every session now, so that no wait outlives it, and refuse new
   * connects. The thread itself still dies as it would have.
   */
  private void threadDied(Thread thread, Throwable cause) {
    if (core.isClosed()) {
      return;
    }
    // Broken first, with nothing allocated: the thread may have died of the heap running out,
    // and the words below may fail the same way; close() must still not wait for this thread.
    broken = THREAD_DIED;
    String why = THREAD_DIED;
    try {
      why = "MINA thread " + thread.getName() + " died: " + cause;
      broken = why;
    } catch (OutOfMemoryError e) {
      // The constant says enough.
    }
    core.closeAll(why);
    try {
      LOG.error("{}; failed the connector's sessions", why, cause);
    } catch (OutOfMemoryError e) {
      // No room to log it: the sessions have heard.
    }
  }

  /**
   * True once one of this connector's threads has died; it then refuses to connect.
   *
   * @return true if the connector is broken
   */
  public boolean isBroken() {
    return broken != null;
  }

  private static ThreadFactory daemonThreads(String prefix, BiConsumer<Thread, Throwable> died,
      ThreadCounts counts) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new MinaIoThread(() -> {
        try {
          runnable.run();
        } catch (RuntimeException | Error e) {
          try {
            HeapExhaustion.report(e, DIES);
          } finally {
            // Whatever the report met: the connector must learn that its thread is gone.
            died.accept(Thread.currentThread(), e);
          }
          throw e;
        }
      }, prefix + count.incrementAndGet(), counts);
      thread.setDaemon(true);
      return thread;
    };
  }

  /**
   * Options for a {@link MinaConnector}: those of every connector ({@link ConnectorBuilder#tls},
   * {@link ConnectorBuilder#inboundBufferLimit}) and MINA's processor count; build with
   * {@link #tcp()} or {@link #vmPipe()}. TLS is TCP only: {@link #vmPipe()} refuses it.
   */
  public static final class Builder extends ConnectorBuilder<Builder> {
    private Builder() {}

    /**
     * NIO processor threads for TCP; default (0) is MINA's, one more than the cores. Ignored
     * by the in-VM pipe, which has no I/O threads.
     *
     * @param count the number of processor threads; 0 for MINA's default
     * @return this builder
     * @throws IllegalArgumentException if {@code count < 0}
     */
    public Builder processorCount(int count) {
      return ioThreads(count);
    }

    /**
     * Builds a TCP connector with these options.
     *
     * @return a new connector, which the caller closes
     */
    public MinaConnector tcp() {
      return build(false, Runtime.getRuntime().availableProcessors() + 1);
    }

    /**
     * A TCP connector with {@code defaultProcessors} NIO processors unless told otherwise, whose
     * connects made off its processors are handed to them (see {@code Core.connect}): the
     * continuation connector's.
     */
    MinaConnector tcpConnectingOnLoops(int defaultProcessors) {
      return new MinaConnector(tlsSettings(), inboundLimitBytes(), ioThreadsOr(defaultProcessors), false,
          tickerSetting(), true);
    }

    /**
     * Builds an in-VM pipe connector with these options.
     *
     * @return a new connector, which the caller closes
     * @throws IllegalStateException if TLS was asked for
     */
    public MinaConnector vmPipe() {
      return build(true, Runtime.getRuntime().availableProcessors() + 1);
    }

    private MinaConnector build(boolean vmPipe, int defaultProcessors) {
      return new MinaConnector(tlsSettings(), inboundLimitBytes(), ioThreadsOr(defaultProcessors), vmPipe, tickerSetting(),
          false);
    }
  }
}
