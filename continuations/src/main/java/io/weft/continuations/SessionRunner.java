package io.weft.continuations;

import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.socket.SocketConnector;
import io.weft.transport.Timeout;
import io.weft.transport.spi.HeapExhaustion;
import io.weft.transport.spi.VirtualThreads;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Runs many sessions of one {@link SessionTask} in any {@link Mode} and reports each session's
 * outcome. One failing session never disturbs the others.
 *
 * <pre>{@code
 * try (SessionRunner runner = SessionRunner.builder()
 *     .mode(Mode.continuations(1))
 *     .connector(connector).address(address).timeout(Timeout.of(5, SECONDS))
 *     .instrument("com.example.client")
 *     .build()) {
 *   RunResult<String> result = runner.run(LineTesterTask.class, 10_000, 10);
 * }
 * }</pre>
 *
 * <p>Per session the runner opens a transport with the connector, calls the task's {@code run}
 * once, and closes the transport. Connects are paced ({@link Builder#connectPacing}), and at most
 * {@value ConnectWindow#DEFAULT_SESSIONS} sessions are connected without having heard from their
 * server yet ({@link Builder#connectWindow}), so that a large run does not overflow a server's
 * listen queue however slowly it accepts. One task instance serves the whole run. In
 * {@code CONTINUATIONS} mode the task class is loaded by name through a
 * {@link ContinuationClassLoader} over the instrumented packages, and made with the given
 * constructor arguments: pass JDK types, expect JDK-typed results. With
 * {@link Builder#alreadyRewritten()} it runs the given class as it is instead, rewritten ahead of
 * time by the build tool ({@code io.weft.continuations.tools.Rewrite}) or the agent
 * ({@code io.weft.continuations.tools.Agent}), and refuses one that was not.
 *
 * <p>Lifecycle: {@link #run} blocks until every session has ended; {@link #cancel()} (from any
 * thread) ends a run early: sessions not started are {@code CANCELLED}, running ones have their
 * transport closed and their waits failed. {@link #close()} cancels and waits until the run's
 * threads are gone; after it no thread and no suspended continuation is left.
 */
public final class SessionRunner implements AutoCloseable {
  private final RunnerSettings settings;
  private final ModeRunner modeRunner;

  private final Object lock = new Object();
  private RunControl current;
  private boolean closed;

  private SessionRunner(Builder b) {
    this.settings = new RunnerSettings(b.mode, b.connector, b.addresses, b.timeout, b.packages,
        b.alreadyRewritten, b.debugFrames, b.allowBlockingConnector, b.maxInFlight, b.parent, b.closeWaitMillis,
        b.connectPacing, b.connectWindow != null ? b.connectWindow
            : b.connectPacing.paces() ? ConnectWindow.DEFAULT : ConnectWindow.NONE, b.contexts, b.loader);
    this.modeRunner = ModeRunner.of(settings);
  }

  /**
   * Starts the configuration of a runner.
   *
   * @return a new builder, with {@link Mode#SYNC} and no timeouts
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The mode this runner runs sessions in.
   *
   * @return the mode
   */
  public Mode mode() {
    return settings.mode();
  }

  /**
   * The instrumenting class loader of {@code CONTINUATIONS} mode: the one given to
   * {@link Builder#classLoader}, or one made on first use; null in other modes and with
   * {@link Builder#alreadyRewritten()}.
   *
   * @return the loader, or null
   */
  public ContinuationClassLoader classLoader() {
    return modeRunner instanceof ContinuationRunner ? ((ContinuationRunner) modeRunner).classLoader() : null;
  }

  /**
   * Runs {@code sessions} sessions of a new {@code taskClass(constructorArgs)} and returns when
   * all have ended.
   *
   * @throws NotInstrumentableException in {@code CONTINUATIONS} mode, before any session starts,
   *     if the task can reach code that cannot suspend, or, with
   *     {@link Builder#alreadyRewritten()}, if the task class was not rewritten
   * @throws IllegalStateException if this runner is closed or already running, or (in
   *     {@code CONTINUATIONS} mode) the connector blocks
   * @throws IllegalArgumentException if the task class cannot be made with those arguments
   * @throws UnsupportedOperationException for {@code VIRTUAL_THREADS} on a JDK before 21
   * @throws RunAbortedException if the heap ran out while the run was under way: every session
   *     not yet ended was cancelled (see {@link io.weft.transport.spi.HeapExhaustion})
   * @param <T> what each session's task returns
   * @param taskClass the task; one instance serves every session of the run
   * @param sessions how many sessions to run, at least 0
   * @param constructorArgs the arguments of the task's constructor
   * @return one outcome per session, with the run's wall-clock time
   * @throws InterruptedException if the calling thread is interrupted while it waits for the sessions;
   *     never in {@code SYNC}, where the calling thread runs them: there the interrupt status is
   *     the sessions' (a task may leave it set), a wait for a session's close report goes on for
   *     the close wait at most after an interrupt, and the status is kept
   */
  public <T> RunResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions, Object... constructorArgs)
      throws InterruptedException {
    Objects.requireNonNull(taskClass, "taskClass");
    if (sessions < 0) {
      throw new IllegalArgumentException("sessions < 0: " + sessions);
    }
    RunControl run = new RunControl(settings.closeWaitMillis());
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("runner is closed");
      }
      if (current != null) {
        throw new IllegalStateException("runner is already running");
      }
      current = run;
    }
    // The heap running out anywhere ends the run: its sessions are cancelled, and it throws once
    // they have ended, rather than wait on sessions whose I/O threads or timer may be gone.
    HeapExhaustion.Watch watch;
    try {
      watch = HeapExhaustion.watch(run::abort);
    } catch (RuntimeException e) {
      // A setting of the heap's watch refused (its message names it): no run, and the runner free.
      synchronized (lock) {
        current = null;
        lock.notifyAll();
      }
      throw e;
    }
    try {
      RunResult<T> result = modeRunner.run(taskClass, sessions, constructorArgs, run);
      String aborted = run.abortedBecause();
      if (aborted != null) {
        throw aborted(run, aborted, run.unended(), result);
      }
      return result;
    } catch (OutOfMemoryError e) {
      // Met on this thread (rewriting the task, making its sessions, waiting for them): if it is
      // the heap running out, the other runs under way end too, as if a session had met it, and
      // this one ends as an aborted run, without the outcomes it had no room to gather.
      try {
        HeapExhaustion.report(e, RunControl.RUN_THREAD);
      } catch (OutOfMemoryError again) {
        // Its telling found no room either: this run ends as aborted all the same if it was, and
        // the other runs' sessions meet the heap's end themselves.
      }
      String aborted = run.abortedBecause();
      if (aborted == null) {
        throw e;
      }
      throw aborted(run, aborted, -1, null);
    } finally {
      // An aborted run's cancels stop (see RunControl): the run does not wait for a close under way.
      run.over();
      watch.close();
      synchronized (lock) {
        current = null;
        lock.notifyAll();
      }
    }
  }

  /**
   * The exception an aborted run throws, made again while the heap has no room for it (its
   * class may load, its message's concatenation link, here for the first time), up to the
   * abort's grace: the sessions are still giving their heap back. No lambda: making one can
   * need room too. Past the grace: the one made with the run, with no stack trace, saying the
   * same (the outcomes and the sessions left behind, when they were gathered); before, the run
   * threw the bare {@code OutOfMemoryError}, often the JVM's own preallocated one, with no frames
   * and no word of the abort.
   */
  private RunAbortedException aborted(RunControl run, String reason, int unended, RunResult<?> result) {
    for (;;) {
      try {
        return new RunAbortedException(reason, unended, settings.closeWaitMillis(), result);
      } catch (OutOfMemoryError e) {
        try {
          run.waitForHeap(e, settings.closeWaitMillis());
        } catch (OutOfMemoryError gaveUp) {
          return run.abortedWithNoRoom(reason, unended, settings.closeWaitMillis(), result);
        }
      }
    }
  }

  /** Cancels the run in progress, if any; returns at once. */
  public void cancel() {
    RunControl run;
    synchronized (lock) {
      run = current;
    }
    if (run != null) {
      run.cancel();
    }
  }

  /**
   * Cancels any run in progress and waits (up to the builder's close wait) for its threads to
   * end. Does not close the connector, which belongs to the caller.
   */
  @Override
  public void close() {
    RunControl run;
    synchronized (lock) {
      closed = true;
      run = current;
    }
    if (run == null) {
      return;
    }
    run.cancel();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.closeWaitMillis());
    synchronized (lock) {
      while (current != null) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0L) {
          throw new IllegalStateException("sessions still running " + settings.closeWaitMillis()
              + " ms after cancel: a task ignores cancellation (busy loop, or blocked outside the transport)");
        }
        try {
          lock.wait(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Configures a {@link SessionRunner}. */
  public static final class Builder {
    private Mode mode = Mode.SYNC;
    private Connector connector;
    private List<SocketAddress> addresses;
    private Timeout timeout = Timeout.NONE;
    private final List<String> packages = new ArrayList<>();
    private boolean alreadyRewritten;
    private boolean debugFrames;
    private boolean allowBlockingConnector;
    private int maxInFlight;
    private ClassLoader parent = SessionRunner.class.getClassLoader();
    private long closeWaitMillis = 10_000L;
    private ConnectPacing connectPacing = ConnectPacing.DEFAULT;
    /** Null for the default: {@link ConnectWindow#DEFAULT}, none with {@link ConnectPacing#NONE}. */
    private ConnectWindow connectWindow;
    private final List<ThreadContext<?>> contexts = new ArrayList<>();
    private ContinuationClassLoader loader;

    private Builder() {}

    /**
     * The mode the sessions run in; {@link Mode#SYNC} by default.
     *
     * @param mode the mode
     * @return this builder
     */
    public Builder mode(Mode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /**
     * Opens each session's transport; it stays the caller's to close. Optional outside
     * {@code CONTINUATIONS}: SYNC, THREADS and VIRTUAL_THREADS default to a
     * {@link SocketConnector}, blocking {@code java.net.Socket}s, which is what a plain or
     * virtual thread does best (it owns no threads, and each session closes its own transport).
     * {@code CONTINUATIONS} needs a suspending connector, given here.
     *
     * @param connector the connector; for {@code CONTINUATIONS} a suspending one such as {@code SuspendingMinaConnector}
     * @return this builder
     */
    public Builder connector(Connector connector) {
      this.connector = Objects.requireNonNull(connector, "connector");
      return this;
    }

    /**
     * Every session connects to {@code address}; replaces any earlier {@link #addresses}.
     *
     * @param address where every session connects
     * @return this builder
     */
    public Builder address(SocketAddress address) {
      this.addresses = List.of(Objects.requireNonNull(address, "address"));
      return this;
    }

    /**
     * Sessions spread round robin over {@code addresses}: session {@code i} connects to
     * {@code addresses.get(i % addresses.size())}. For runs larger than one server address can
     * take, e.g. loopback TCP beyond one address's ephemeral ports (bind the server on
     * 127.0.0.1 .. 127.0.0.4). Replaces any earlier {@link #address}.
     *
     * @throws IllegalArgumentException if {@code addresses} is empty
     * @param addresses the addresses, taken in turn by session index
     * @return this builder
     */
    public Builder addresses(List<? extends SocketAddress> addresses) {
      List<SocketAddress> copy = List.copyOf(Objects.requireNonNull(addresses, "addresses"));
      if (copy.isEmpty()) {
        throw new IllegalArgumentException("addresses is empty");
      }
      this.addresses = copy;
      return this;
    }

    /**
     * Each session's transport timeouts; the session deadline starts at its connect.
     *
     * @param timeout the timeouts; {@link Timeout#NONE} by default
     * @return this builder
     */
    public Builder timeout(Timeout timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Packages whose classes are rewritten in {@code CONTINUATIONS} mode: the task's and any of
     * your code on its suspend paths (e.g. {@code "io.weft.protocols"}). Subpackages included.
     *
     * @param packageNames the packages whose classes are rewritten, with their subpackages
     * @return this builder
     */
    public Builder instrument(String... packageNames) {
      packages.addAll(Arrays.asList(packageNames));
      return this;
    }

    /**
     * {@code CONTINUATIONS} mode through {@code loader}, made by the caller and shared by any number
     * of runners, instead of a new loader over {@link #instrument} packages per runner. A loader
     * scans and analyses its packages once and rewrites each class once, so runs that share it pay
     * that once (seconds for a large package) and run the same rewritten classes; the runs behave
     * as with {@code instrument(loader.packages())}. Excludes {@link #instrument} and
     * {@link #alreadyRewritten()}; ignored by the other modes.
     *
     * @param loader the instrumenting loader to load task classes through
     * @return this builder
     */
    public Builder classLoader(ContinuationClassLoader loader) {
      this.loader = Objects.requireNonNull(loader, "loader");
      return this;
    }

    /**
     * {@code CONTINUATIONS} mode over task classes that were rewritten ahead of time, by the
     * build tool ({@code io.weft.continuations.tools.Rewrite}) or by the agent
     * ({@code -javaagent:continuations.jar=<packages>}): {@link SessionRunner#run} makes the
     * given class as it is, from its own class loader, with no {@link ContinuationClassLoader}.
     * It refuses, before any session starts, a task class that carries no mark of Weft's
     * rewrite, naming it and the fix, and one whose rewrite found code it cannot suspend
     * through; a frame on the suspend path that was not rewritten fails its session with
     * {@link NotInstrumentedError}, as in the other continuation mode. Excludes
     * {@link #instrument}; ignored by the other modes, which run rewritten classes unchanged.
     *
     * @return this builder
     */
    public Builder alreadyRewritten() {
      this.alreadyRewritten = true;
      return this;
    }

    /**
     * Debug mode: check every frame of every suspend path against what was rewritten, and fail
     * the session naming the first that was not; and fail a session that suspends while its
     * worker thread holds a {@code ReentrantLock} or {@code ReentrantReadWriteLock} it keeps
     * (use {@link SessionLock} instead). Costs a stack walk and a look through the suspended
     * frames (microseconds) per suspend.
     *
     * @param debugFrames true to check every rewritten frame as it suspends
     * @return this builder
     */
    public Builder debugFrames(boolean debugFrames) {
      this.debugFrames = debugFrames;
      return this;
    }

    /**
     * Carries {@code contexts} across each session's waits in {@code CONTINUATIONS} mode: contexts
     * that code which is not rewritten keeps in thread-locals (see {@link ThreadContext}). Their
     * classes' thread-local uses are then not refused. Ignored by the other modes.
     *
     * @param contexts what to carry, taken off and put back in this order
     * @return this builder
     */
    public Builder carry(ThreadContext<?>... contexts) {
      for (ThreadContext<?> c : contexts) {
        this.contexts.add(Objects.requireNonNull(c, "context"));
      }
      return this;
    }

    /**
     * Let {@code CONTINUATIONS} mode use a connector that blocks its worker thread.
     *
     * @param allow true to accept a blocking connector in {@code CONTINUATIONS} mode
     * @return this builder
     */
    public Builder allowBlockingConnector(boolean allow) {
      this.allowBlockingConnector = allow;
      return this;
    }

    /**
     * At most this many sessions at once; 0 (the default) for no limit.
     *
     * @param maxInFlight the most sessions open at once, or 0 for no limit
     * @return this builder
     */
    public Builder maxInFlight(int maxInFlight) {
      if (maxInFlight < 0) {
        throw new IllegalArgumentException("maxInFlight < 0: " + maxInFlight);
      }
      this.maxInFlight = maxInFlight;
      return this;
    }

    /**
     * How fast sessions open their connections; {@link ConnectPacing#DEFAULT} unless told.
     * Opening thousands at once overflows a stock server's listen queue (Java's default backlog
     * is 50): its kernel drops the SYNs, and each dropped one waits a 1 s (then 3 s) retransmit,
     * or fails the session. Paced, each session waits its turn (suspended in
     * {@code CONTINUATIONS}, asleep in the thread modes) before it connects; {@code SYNC}, one
     * session at a time, and in-VM addresses are never paced. {@link ConnectPacing#NONE} opens
     * them all at once: unless a {@link #connectWindow} is set too, it turns the connect window
     * off as well.
     *
     * @param pacing the pacing
     * @return this builder
     */
    public Builder connectPacing(ConnectPacing pacing) {
      this.connectPacing = Objects.requireNonNull(pacing, "pacing");
      return this;
    }

    /**
     * How many sessions may be connected, or connecting, without having heard from their server
     * yet; {@link ConnectWindow#DEFAULT} ({@value ConnectWindow#DEFAULT_SESSIONS}, growing to
     * {@value ConnectWindow#DEFAULT_MAX_SESSIONS} while that makes places come back faster, below
     * the 51 connections Java's default listen backlog of 50 queues) unless told
     * ({@link ConnectWindow#DEEP_BACKLOG} for a server with Redis' or nginx's backlog of 511), or
     * none if the pacing is
     * {@link ConnectPacing#NONE} and no window is set. Beside the pacing, it keeps the server's listen
     * queue short whatever the load: a connection still queued is one the server has not sent on.
     * The others wait for a place (suspended in {@code CONTINUATIONS}, asleep in the thread modes)
     * before their pacing turn; the wait is not counted against their timeout. A place comes back
     * with the first bytes the session receives, its failed connect or its task's end, or after
     * the window's hold bound without word from the server (see {@link ConnectWindow}: a protocol
     * whose first reply comes late is slowed, never stuck, and the run logs it and reports it in
     * {@link RunResult#connectWindow()}). A run over several {@link #addresses} has a window of
     * this size for each listening socket they reach (each has its own listen queue; loopback
     * addresses with one port are one), so a silent server holds back only its own sessions.
     * {@code SYNC} and in-VM addresses have no window.
     *
     * @param window the window; {@link ConnectWindow#NONE} for none
     * @return this builder
     */
    public Builder connectWindow(ConnectWindow window) {
      this.connectWindow = Objects.requireNonNull(window, "window");
      return this;
    }

    /**
     * As {@link #connectWindow(ConnectWindow)}: at most {@code sessions} sessions not yet heard
     * from, with the default hold bound, fixed (it does not grow); 0 for no window.
     *
     * @param sessions the window's size, or 0 for none
     * @return this builder
     * @throws IllegalArgumentException if {@code sessions < 0}
     */
    public Builder connectWindow(int sessions) {
      if (sessions < 0) {
        throw new IllegalArgumentException("sessions < 0: " + sessions);
      }
      this.connectWindow = sessions == 0 ? ConnectWindow.NONE
          : ConnectWindow.of(sessions, java.time.Duration.ofNanos(ConnectWindow.DEFAULT_HOLD_NANOS));
      return this;
    }

    /**
     * Where task classes are read from; defaults to the loader of this class.
     *
     * @param parent the class loader that task classes are read from
     * @return this builder
     */
    public Builder parentClassLoader(ClassLoader parent) {
      this.parent = Objects.requireNonNull(parent, "parent");
      return this;
    }

    /**
     * How long {@link SessionRunner#close()} waits for cancelled sessions to end, and a run
     * aborted because the heap ran out (see {@link RunAbortedException}) waits for its own.
     *
     * @param duration how long to wait
     * @param unit the unit of {@code duration}
     * @return this builder
     */
    public Builder closeWait(long duration, TimeUnit unit) {
      this.closeWaitMillis = unit.toMillis(duration);
      return this;
    }

    /**
     * Makes the runner.
     *
     * @return a new runner, which the caller closes
     * @throws IllegalStateException if the connector or address is missing,
     *     {@code CONTINUATIONS} has no packages to instrument, or two ways of rewriting are given
     * @throws UnsupportedOperationException for {@code VIRTUAL_THREADS} on a JDK before 21
     */
    public SessionRunner build() {
      if (connector == null && mode.kind() != Mode.Kind.CONTINUATIONS) {
        connector = new SocketConnector();
      }
      if (connector == null || addresses == null) {
        throw new IllegalStateException("connector and address (or addresses) are required");
      }
      if (alreadyRewritten && !packages.isEmpty()) {
        throw new IllegalStateException("instrument(...) rewrites at load time, alreadyRewritten() runs classes"
            + " rewritten ahead of time: choose one");
      }
      if (loader != null && (alreadyRewritten || !packages.isEmpty())) {
        throw new IllegalStateException("classLoader(...) rewrites through the given loader, "
            + (alreadyRewritten ? "alreadyRewritten() runs classes rewritten ahead of time" : "instrument(...) through"
            + " a new one") + ": choose one");
      }
      if (mode.kind() == Mode.Kind.CONTINUATIONS && packages.isEmpty() && !alreadyRewritten && loader == null) {
        throw new IllegalStateException("CONTINUATIONS mode needs the packages to instrument: instrument(...),"
            + " or alreadyRewritten() for classes rewritten at build time or by the agent");
      }
      if (mode.kind() == Mode.Kind.VIRTUAL_THREADS) {
        VirtualThreads.check();
      }
      return new SessionRunner(this);
    }
  }
}
