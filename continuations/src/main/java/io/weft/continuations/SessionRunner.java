package io.weft.continuations;

import io.weft.continuations.spi.SuspendingConnector;
import io.weft.continuations.internal.ClassRewriter;
import io.weft.continuations.internal.Fiber;
import io.weft.continuations.internal.FrameLoader;
import io.weft.continuations.internal.Rewritten;
import io.weft.continuations.internal.Scheduler;
import io.weft.continuations.internal.SessionContext;
import io.weft.continuations.internal.SessionFrame;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.internal.VirtualThreads;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.commons.javaflow.core.Skip;

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
 * once, and closes the transport. One task instance serves the whole run. In
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
  private final Mode mode;
  private final Connector connector;
  private final List<SocketAddress> addresses;
  private final Timeout timeout;
  private final List<String> packages;
  private final boolean alreadyRewritten;
  private final boolean debugFrames;
  private final boolean allowBlockingConnector;
  private final int maxInFlight;
  private final ClassLoader parent;
  private final long closeWaitMillis;

  private final Object lock = new Object();
  private ContinuationClassLoader loader;
  private FrameLoader frames;
  private Run current;
  private boolean closed;

  private SessionRunner(Builder b) {
    this.mode = b.mode;
    this.connector = b.connector;
    this.addresses = b.addresses;
    this.timeout = b.timeout;
    this.packages = List.copyOf(b.packages);
    this.alreadyRewritten = b.alreadyRewritten;
    this.debugFrames = b.debugFrames;
    this.allowBlockingConnector = b.allowBlockingConnector;
    this.maxInFlight = b.maxInFlight;
    this.parent = b.parent;
    this.closeWaitMillis = b.closeWaitMillis;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Mode mode() {
    return mode;
  }

  /**
   * The instrumenting class loader of {@code CONTINUATIONS} mode, made on first use, or null in
   * other modes and with {@link Builder#alreadyRewritten()}.
   */
  public ContinuationClassLoader classLoader() {
    if (mode.kind() != Mode.Kind.CONTINUATIONS || alreadyRewritten) {
      return null;
    }
    synchronized (lock) {
      if (loader == null) {
        loader = new ContinuationClassLoader(parent, packages);
      }
      return loader;
    }
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
   */
  public <T> RunResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions, Object... constructorArgs)
      throws InterruptedException {
    Objects.requireNonNull(taskClass, "taskClass");
    if (sessions < 0) {
      throw new IllegalArgumentException("sessions < 0: " + sessions);
    }
    Run run = new Run();
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("runner is closed");
      }
      if (current != null) {
        throw new IllegalStateException("runner is already running");
      }
      current = run;
    }
    try {
      List<SessionContext> contexts;
      long start;
      switch (mode.kind()) {
        case CONTINUATIONS:
          contexts = new ArrayList<>();
          start = runContinuations(run, taskClass, sessions, constructorArgs, contexts);
          break;
        case SYNC:
          contexts = contexts(newTask(taskClass, constructorArgs), sessions);
          start = System.nanoTime();
          runSync(run, contexts);
          break;
        case THREADS:
        case VIRTUAL_THREADS:
          if (mode.kind() == Mode.Kind.VIRTUAL_THREADS) {
            VirtualThreads.check();
          }
          contexts = contexts(newTask(taskClass, constructorArgs), sessions);
          start = System.nanoTime();
          runThreads(run, contexts, mode.kind() == Mode.Kind.VIRTUAL_THREADS);
          break;
        default:
          throw new AssertionError(mode);
      }
      long wall = System.nanoTime() - start;
      return new RunResult<>(mode, outcomes(contexts), wall);
    } finally {
      synchronized (lock) {
        current = null;
        lock.notifyAll();
      }
    }
  }

  /** Cancels the run in progress, if any; returns at once. */
  public void cancel() {
    Run run;
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
    Run run;
    synchronized (lock) {
      closed = true;
      run = current;
    }
    if (run == null) {
      return;
    }
    run.cancel();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(closeWaitMillis);
    synchronized (lock) {
      while (current != null) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0L) {
          throw new IllegalStateException("sessions still running " + closeWaitMillis
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

  // ---- the modes

  private <T> long runContinuations(Run run, Class<? extends SessionTask<T>> taskClass, int sessions,
      Object[] args, List<SessionContext> contexts) throws InterruptedException {
    checkSuspendingConnector();
    Constructor<?> frameConstructor;
    SessionTask<?> task;
    if (alreadyRewritten) {
      checkRewritten(taskClass);
      task = newTask(taskClass, args);
      frameConstructor = frameConstructor(frameLoader());
    } else {
      ContinuationClassLoader cl = classLoader();
      String name = taskClass.getName();
      if (!cl.inPackages(name)) {
        throw new IllegalArgumentException("task class " + name + " is not under the instrumented packages "
            + cl.packages() + ": add its package with Builder.instrument(...)");
      }
      refuse(name, cl.problemsFor(name));
      try {
        task = newTask(Class.forName(name, true, cl), args);
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException("cannot load " + name + " through the continuation class loader: " + e, e);
      }
      frameConstructor = frameConstructor(cl);
    }
    // The workers inherit the context class loader from this thread: make it the task's, so a
    // ServiceLoader or a framework in the task finds the classes the task itself links to.
    Thread self = Thread.currentThread();
    ClassLoader context = self.getContextClassLoader();
    Scheduler scheduler;
    self.setContextClassLoader(task.getClass().getClassLoader());
    try {
      scheduler = new Scheduler(mode.workers(), maxInFlight, "weft");
    } finally {
      self.setContextClassLoader(context);
    }
    List<Fiber> fibers = new ArrayList<>(sessions);
    for (int i = 0; i < sessions; i++) {
      Fiber fiber = new Fiber(i, connector, addressFor(i), timeout, task, scheduler, debugFrames);
      fibers.add(fiber);
      contexts.add(fiber);
    }
    run.scheduler = scheduler;
    long start = System.nanoTime();
    try {
      CountDownLatch done = scheduler.runAll(fibers, fiber -> newFrame(frameConstructor, fiber));
      if (run.cancelled) {
        scheduler.cancel();
      }
      done.await();
    } finally {
      scheduler.shutdown(closeWaitMillis);
    }
    return start;
  }

  private static void refuse(String name, List<InstrumentationReport.Problem> problems) {
    if (!problems.isEmpty()) {
      StringBuilder message = new StringBuilder(name + " cannot run as continuations:");
      for (InstrumentationReport.Problem p : problems) {
        message.append("\n  ").append(p);
      }
      message.append("\nFix those, or run this task in THREADS or VIRTUAL_THREADS mode.");
      throw new NotInstrumentableException(message.toString(), problems);
    }
  }

  /** alreadyRewritten(): the task class must carry Weft's mark, and what its rewrite found. */
  private static void checkRewritten(Class<?> taskClass) {
    String name = taskClass.getName();
    Rewritten marker = taskClass.getAnnotation(Rewritten.class);
    if (marker != null) {
      // What the rewrite found first: the engine may have left such a class's bodies alone.
      refuse(name, ClassRewriter.problems(marker));
    }
    if (marker == null || marker.methods().length == 0) {
      String pkg = taskClass.getPackageName();
      String message = name + " was not rewritten for continuations, and alreadyRewritten() runs task classes"
          + " as they were loaded (here by " + describe(taskClass.getClassLoader()) + "). Fix: rewrite its package at"
          + " build time (java io.weft.continuations.tools.Rewrite --classes <its classes directory>"
          + " --packages " + pkg + ", bound to process-classes), or start the JVM with"
          + " -javaagent:<continuations jar>=" + pkg + ", or drop alreadyRewritten() and name the package"
          + " with instrument(\"" + pkg + "\") to rewrite it at load time.";
      throw new NotInstrumentableException(message, List.of(new InstrumentationReport.Problem(
          name, "run", "(Lio/weft/transport/Transport;I)Ljava/lang/Object;", "not rewritten for continuations")));
    }
  }

  private static String describe(ClassLoader loader) {
    if (loader == null) {
      return "the boot class loader";
    }
    return loader.getName() != null ? "class loader '" + loader.getName() + "'" : loader.toString();
  }

  private FrameLoader frameLoader() {
    synchronized (lock) {
      if (frames == null) {
        frames = new FrameLoader(SessionFrame.class.getClassLoader());
      }
      return frames;
    }
  }

  private static Constructor<?> frameConstructor(ClassLoader loader) {
    try {
      return Class.forName(SessionFrame.class.getName(), true, loader).getConstructor(SessionContext.class);
    } catch (ClassNotFoundException | NoSuchMethodException e) {
      throw new IllegalStateException("cannot load the session frame through " + loader + ": " + e, e);
    }
  }

  private static Runnable newFrame(Constructor<?> frameConstructor, Fiber fiber) {
    try {
      return (Runnable) frameConstructor.newInstance(fiber);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make the session frame: " + e, e);
    }
  }

  private void checkSuspendingConnector() {
    if (connector instanceof SuspendingConnector) {
      if (!connector.getClass().isAnnotationPresent(Skip.class)) {
        throw new IllegalStateException(connector.getClass().getName() + " implements SuspendingConnector"
            + " but was not rewritten for continuations: run the JavaFlow build step"
            + " (net.tascalate.javaflow.tools.maven, goal javaflow-enhance) over its module");
      }
      return;
    }
    if (!allowBlockingConnector) {
      throw new IllegalStateException(connector.getClass().getName() + " is a blocking connector:"
          + " in CONTINUATIONS mode each of its waits would block a worker thread and every session"
          + " queued behind it. Use a SuspendingConnector (such as ContinuingMinaConnector), or"
          + " Builder.allowBlockingConnector(true) if that is really meant");
    }
  }

  private void runSync(Run run, List<SessionContext> contexts) {
    for (SessionContext context : contexts) {
      run.live = new SessionContext[] {context};
      if (run.cancelled) {
        context.cancel();
        continue;
      }
      new SessionFrame(context).run();
    }
  }

  private void runThreads(Run run, List<SessionContext> contexts, boolean virtual) throws InterruptedException {
    Semaphore permits = new Semaphore(maxInFlight <= 0 ? Integer.MAX_VALUE : maxInFlight);
    // The session threads still running, for cancel's interrupt: a finished one leaves, so that
    // a long run keeps no Thread per finished session. Guarded by itself.
    Set<Thread> threads = new HashSet<>();
    // The thread that ended last. Each ending thread joins the one before it, so joining the
    // last one waits for them all without keeping them.
    AtomicReference<Thread> lastEnded = new AtomicReference<>();
    run.live = contexts.toArray(new SessionContext[0]);
    run.threads = threads;
    try {
      for (SessionContext context : contexts) {
        permits.acquire();
        if (run.cancelled) {
          permits.release();
          context.cancel();
          continue;
        }
        // Set under the lock by the thread ending; its registration below looks at it.
        boolean[] ended = new boolean[1];
        Runnable body = () -> {
          try {
            new SessionFrame(context).run();
          } finally {
            synchronized (threads) {
              ended[0] = true;
              threads.remove(Thread.currentThread());
            }
            joinUninterruptibly(lastEnded.getAndSet(Thread.currentThread()));
            permits.release();
          }
        };
        String name = "weft-session-" + context.index();
        Thread thread;
        if (virtual) {
          thread = VirtualThreads.start(name, body);
        } else {
          thread = new Thread(body, name);
          thread.setDaemon(true);
          thread.start();
        }
        synchronized (threads) {
          if (!ended[0]) {
            threads.add(thread);
          }
        }
      }
    } finally {
      // Every session has ended once all permits are back; then the last thread to end has
      // joined the one before it, and so on.
      int all = maxInFlight <= 0 ? Integer.MAX_VALUE : maxInFlight;
      permits.acquire(all);
      permits.release(all);
      Thread last = lastEnded.get();
      if (last != null) {
        last.join();
      }
    }
  }

  private static void joinUninterruptibly(Thread thread) {
    if (thread == null) {
      return;
    }
    boolean interrupted = false;
    for (;;) {
      try {
        thread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  // ---- helpers

  private List<SessionContext> contexts(SessionTask<?> task, int sessions) {
    List<SessionContext> contexts = new ArrayList<>(sessions);
    for (int i = 0; i < sessions; i++) {
      contexts.add(new SessionContext(i, connector, addressFor(i), timeout, task));
    }
    return contexts;
  }

  /** Where session {@code index} connects: round robin over the builder's addresses. */
  private SocketAddress addressFor(int index) {
    return addresses.get(index % addresses.size());
  }

  private static SessionTask<?> newTask(Class<?> type, Object[] args) {
    for (Constructor<?> c : type.getConstructors()) {
      if (fits(c.getParameterTypes(), args)) {
        try {
          return (SessionTask<?>) c.newInstance(args);
        } catch (InvocationTargetException e) {
          throw new IllegalArgumentException("constructor of " + type.getName() + " threw " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
          throw new IllegalArgumentException("cannot make " + type.getName() + ": " + e, e);
        }
      }
    }
    throw new IllegalArgumentException("no public constructor of " + type.getName() + " takes "
        + Arrays.toString(args) + " (a task class must be public with a public constructor)");
  }

  private static boolean fits(Class<?>[] params, Object[] args) {
    if (params.length != args.length) {
      return false;
    }
    for (int i = 0; i < params.length; i++) {
      Class<?> p = params[i].isPrimitive() ? box(params[i]) : params[i];
      if (args[i] == null ? params[i].isPrimitive() : !p.isInstance(args[i])) {
        return false;
      }
    }
    return true;
  }

  private static Class<?> box(Class<?> primitive) {
    if (primitive == int.class) return Integer.class;
    if (primitive == long.class) return Long.class;
    if (primitive == boolean.class) return Boolean.class;
    if (primitive == double.class) return Double.class;
    if (primitive == float.class) return Float.class;
    if (primitive == short.class) return Short.class;
    if (primitive == byte.class) return Byte.class;
    return Character.class;
  }

  @SuppressWarnings("unchecked")
  private static <T> List<Outcome<T>> outcomes(List<SessionContext> contexts) {
    List<Outcome<T>> out = new ArrayList<>(contexts.size());
    for (SessionContext c : contexts) {
      Outcome.Status status;
      if (c.failure() != null) {
        status = c.isCancelled() ? Outcome.Status.CANCELLED : Outcome.Status.FAILED;
      } else if (c.isFinished()) {
        status = Outcome.Status.SUCCEEDED;
      } else {
        status = Outcome.Status.CANCELLED;
      }
      out.add(new Outcome<>(c.index(), status, (T) c.value(), c.failure()));
    }
    return out;
  }

  /** One run in progress, for cancel. */
  private static final class Run {
    volatile boolean cancelled;
    volatile Scheduler scheduler;
    volatile SessionContext[] live;
    volatile Set<Thread> threads;

    void cancel() {
      cancelled = true;
      Scheduler s = scheduler;
      if (s != null) {
        s.cancel();
      }
      SessionContext[] contexts = live;
      if (contexts != null) {
        for (SessionContext c : contexts) {
          c.cancel();
        }
      }
      Set<Thread> ts = threads;
      if (ts != null) {
        synchronized (ts) {
          for (Thread t : ts) {
            t.interrupt();
          }
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

    private Builder() {}

    public Builder mode(Mode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /** Opens each session's transport; it stays the caller's to close. */
    public Builder connector(Connector connector) {
      this.connector = Objects.requireNonNull(connector, "connector");
      return this;
    }

    /** Every session connects to {@code address}; replaces any earlier {@link #addresses}. */
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
     */
    public Builder addresses(List<? extends SocketAddress> addresses) {
      List<SocketAddress> copy = List.copyOf(Objects.requireNonNull(addresses, "addresses"));
      if (copy.isEmpty()) {
        throw new IllegalArgumentException("addresses is empty");
      }
      this.addresses = copy;
      return this;
    }

    /** Each session's transport timeouts; the session deadline starts at its connect. */
    public Builder timeout(Timeout timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * Packages whose classes are rewritten in {@code CONTINUATIONS} mode: the task's and any of
     * your code on its suspend paths (e.g. {@code "io.weft.protocols"}). Subpackages included.
     */
    public Builder instrument(String... packageNames) {
      packages.addAll(Arrays.asList(packageNames));
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
     */
    public Builder debugFrames(boolean debugFrames) {
      this.debugFrames = debugFrames;
      return this;
    }

    /** Let {@code CONTINUATIONS} mode use a connector that blocks its worker thread. */
    public Builder allowBlockingConnector(boolean allow) {
      this.allowBlockingConnector = allow;
      return this;
    }

    /** At most this many sessions at once; 0 (the default) for no limit. */
    public Builder maxInFlight(int maxInFlight) {
      if (maxInFlight < 0) {
        throw new IllegalArgumentException("maxInFlight < 0: " + maxInFlight);
      }
      this.maxInFlight = maxInFlight;
      return this;
    }

    /** Where task classes are read from; defaults to the loader of this class. */
    public Builder parentClassLoader(ClassLoader parent) {
      this.parent = Objects.requireNonNull(parent, "parent");
      return this;
    }

    /** How long {@link SessionRunner#close()} waits for cancelled sessions to end. */
    public Builder closeWait(long duration, TimeUnit unit) {
      this.closeWaitMillis = unit.toMillis(duration);
      return this;
    }

    /**
     * @throws IllegalStateException if the connector or address is missing, or
     *     {@code CONTINUATIONS} has no packages to instrument
     * @throws UnsupportedOperationException for {@code VIRTUAL_THREADS} on a JDK before 21
     */
    public SessionRunner build() {
      if (connector == null || addresses == null) {
        throw new IllegalStateException("connector and address (or addresses) are required");
      }
      if (alreadyRewritten && !packages.isEmpty()) {
        throw new IllegalStateException("instrument(...) rewrites at load time, alreadyRewritten() runs classes"
            + " rewritten ahead of time: choose one");
      }
      if (mode.kind() == Mode.Kind.CONTINUATIONS && packages.isEmpty() && !alreadyRewritten) {
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
