package io.weft.continuations;

import io.weft.continuations.internal.rewrite.ClassRewriter;
import io.weft.continuations.internal.rewrite.Rewritten;
import io.weft.continuations.internal.rewrite.SuspendableAnalysis;
import io.weft.continuations.internal.runtime.CarriedContexts;
import io.weft.continuations.internal.runtime.Fiber;
import io.weft.continuations.internal.runtime.Guard;
import io.weft.continuations.internal.runtime.Scheduler;
import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.internal.runtime.SessionFrame;
import io.weft.continuations.spi.SuspendingConnector;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.spi.Ticker;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.function.UnaryOperator;
import org.apache.commons.javaflow.core.Skip;

/**
 * {@code CONTINUATIONS}: every session a fiber, run by the mode's workers from a ready queue.
 * Before any session starts it gets the task class rewritten (through the runner's
 * {@link ContinuationClassLoader}, or checks that it was rewritten ahead of time) and refuses a
 * task that cannot suspend, naming why. Cancelling cancels the scheduler: sessions not started
 * end {@code CANCELLED}, suspended ones have their wait fail.
 */
final class ContinuationRunner extends ModeRunner {
  private final Object lock = new Object();
  private ContinuationClassLoader loader;
  private FrameLoader frames;

  ContinuationRunner(RunnerSettings settings) {
    super(settings);
  }

  /**
   * The instrumenting loader: the one the builder was given, or one made on first use; null with
   * {@code alreadyRewritten()}.
   */
  ContinuationClassLoader classLoader() {
    if (settings.alreadyRewritten()) {
      return null;
    }
    if (settings.loader() != null) {
      return settings.loader();
    }
    synchronized (lock) {
      if (loader == null) {
        loader = new ContinuationClassLoader(settings.parent(), settings.packages());
      }
      return loader;
    }
  }

  @Override
  <T> RunResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions, Object[] args, RunControl control)
      throws InterruptedException {
    checkSuspendingConnector(settings.connector(), settings.allowBlockingConnector());
    Constructor<?> frameConstructor;
    SessionTask<?> task;
    if (settings.alreadyRewritten()) {
      checkRewritten(taskClass, this::notCarried);
      task = TaskFactory.newTask(taskClass, args);
      frameConstructor = frameConstructor(frameLoader());
    } else {
      ContinuationClassLoader cl = classLoader();
      String name = taskClass.getName();
      if (!cl.inPackages(name)) {
        throw new IllegalArgumentException("task class " + name + " is not under the instrumented packages "
            + cl.packages() + ": add its package with Builder.instrument(...)");
      }
      refuse(name, notCarried(cl.problemsFor(name)));
      try {
        task = TaskFactory.newTask(Class.forName(name, true, cl), args);
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
    // The run's one clock, its connector's: the timer times every wait by it, and the pacing and
    // the window compute their waits on it.
    Ticker clock = clock();
    self.setContextClassLoader(task.getClass().getClassLoader());
    try {
      // Made on this thread: its sessions inherit this thread's inheritable thread-locals.
      scheduler = new Scheduler(settings.mode().workers(), settings.maxInFlight(), "weft",
          !settings.mode().resumesOnWorkers(), clock);
    } finally {
      self.setContextClassLoader(context);
    }
    scheduler.carry(new CarriedContexts(settings.contexts()));
    List<Fiber> fibers = new ArrayList<>(sessions);
    ConnectPacing.Pacer pacer = pacer(clock);
    ConnectWindow.Windows window = windows(clock);
    for (int i = 0; i < sessions; i++) {
      Fiber fiber = new Fiber(i, settings.connector(), settings.addressFor(i), settings.timeout(), task, scheduler,
          settings.debugFrames());
      fiber.pacer(pacer);
      fiber.cancelledWithNoRoom(control.cancelledWithNoRoom());
      fiber.window(windowFor(window, settings.addressFor(i)));
      fibers.add(fiber);
    }
    long start = System.nanoTime();
    try {
      // Cancelling the scheduler first is fine: it cancels each fiber as it admits it.
      // Made now, not at the abort: the pass asks it before each fiber (see RunControl.nextSession).
      java.util.function.BooleanSupplier goesOn = control::nextSession;
      control.onCancel(() -> scheduler.cancel(goesOn));
      // The fibers' end is looked at, not waited for (the latch's timed wait needs a queue node:
      // see RunControl), and the last fiber's end wakes this thread. An aborted run waits only
      // so long.
      Runnable allEnded = control::wake;
      CountDownLatch done = scheduler.runAll(fibers, fiber -> newFrame(frameConstructor, fiber), allEnded);
      RunControl.Check ended = () -> done.getCount() == 0L;
      if (!control.awaitSessions(ended, settings.closeWaitMillis())) {
        // As in THREADS: the sessions under way, not those never admitted (they are cancelled).
        control.unended((int) done.getCount() - scheduler.notAdmitted());
      }
    } finally {
      scheduler.shutdown(settings.closeWaitMillis());
    }
    return result(fibers, start, control, window);
  }

  /** The problems left once the registered contexts carry the thread-locals they name. */
  private List<InstrumentationReport.Problem> notCarried(List<InstrumentationReport.Problem> problems) {
    if (settings.contexts().isEmpty()) {
      return problems;
    }
    List<InstrumentationReport.Problem> left = new ArrayList<>();
    for (InstrumentationReport.Problem p : problems) {
      if (!SuspendableAnalysis.isHeldThreadLocal(p) || !carried(p.className())) {
        left.add(p);
      }
    }
    return left;
  }

  private boolean carried(String className) {
    for (ThreadContext<?> context : settings.contexts()) {
      for (String name : context.carries()) {
        if (name.equals(className) || (name.endsWith(".") && className.startsWith(name))) {
          return true;
        }
      }
    }
    return false;
  }

  static void refuse(String name, List<InstrumentationReport.Problem> problems) {
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
  private static void checkRewritten(Class<?> taskClass,
      UnaryOperator<List<InstrumentationReport.Problem>> notCarried) {
    String name = taskClass.getName();
    Rewritten marker = taskClass.getAnnotation(Rewritten.class);
    if (marker != null) {
      // What the rewrite found first: the engine may have left such a class's bodies alone.
      refuse(name, notCarried.apply(ClassRewriter.problems(marker)));
      refuseCaptureChecks(name, marker, Guard.CHECKS_AT_CAPTURE);
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

  /**
   * Refuses a class whose rewrite checks restored calls at the capture when this runtime cannot
   * read JavaFlow's reference stack ({@code checksAtCapture} false): the choice was made in the
   * JVM that rewrote it, and every session would otherwise fail at its first checked suspend.
   */
  static void refuseCaptureChecks(String name, Rewritten marker, boolean checksAtCapture) {
    if (marker.captureChecks() && !checksAtCapture) {
      String message = name + " was rewritten to check restored calls while they capture themselves, which"
          + " reads JavaFlow's reference stack, and this runtime cannot read it (org.apache.commons.javaflow.core"
          + " is not open to Weft, as on the module path). Fix: start the JVM with --add-opens"
          + " net.tascalate.javaflow.api/org.apache.commons.javaflow.core=ALL-UNNAMED, or rewrite the classes"
          + " on this runtime (they then check at the resume).";
      throw new NotInstrumentableException(message, List.of(new InstrumentationReport.Problem(
          name, "run", "(Lio/weft/transport/Transport;I)Ljava/lang/Object;",
          "rewritten with capture-time checks this runtime cannot make")));
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

  private static void checkSuspendingConnector(Connector connector, boolean allowBlockingConnector) {
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
          + " queued behind it. Use a SuspendingConnector (such as SuspendingMinaConnector), or"
          + " Builder.allowBlockingConnector(true) if that is really meant");
    }
  }
}
