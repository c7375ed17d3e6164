package io.weft.continuations;

import io.weft.continuations.internal.runtime.SessionContext;
import io.weft.continuations.spi.AbstractSuspendingConnector;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.spi.Clocked;
import io.weft.transport.spi.Ticker;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One mode's way of running the sessions of a {@link SessionRunner}: one subclass per mode, one
 * instance per runner, one {@link #run} at a time (the runner sees to that). Each run owns its
 * cancellation state and registers it with the run's {@link RunControl}.
 */
abstract class ModeRunner {
  private static final Logger LOG = LoggerFactory.getLogger(ModeRunner.class);
  final RunnerSettings settings;

  ModeRunner(RunnerSettings settings) {
    this.settings = settings;
  }

  static ModeRunner of(RunnerSettings settings) {
    switch (settings.mode().kind()) {
      case SYNC:
        return new SyncRunner(settings);
      case THREADS:
        return new ThreadRunner(settings, false);
      case VIRTUAL_THREADS:
        return new ThreadRunner(settings, true);
      case CONTINUATIONS:
        return new ContinuationRunner(settings);
      default:
        throw new AssertionError(settings.mode());
    }
  }

  /**
   * Runs {@code sessions} sessions of a new {@code taskClass(args)} and returns when all have
   * ended; see {@link SessionRunner#run} for what it throws.
   */
  abstract <T> RunResult<T> run(Class<? extends SessionTask<T>> taskClass, int sessions, Object[] args,
      RunControl control) throws InterruptedException;

  /** One plain session context per session of the run {@code control}, all sharing {@code task}. */
  final List<SessionContext> contexts(SessionTask<?> task, int sessions, RunControl control,
      ConnectWindow.Windows windows) {
    List<SessionContext> contexts = new ArrayList<>(sessions);
    ConnectPacing.Pacer pacer = pacer(clock());
    for (int i = 0; i < sessions; i++) {
      SessionContext c = new SessionContext(i, settings.connector(), settings.addressFor(i), settings.timeout(), task);
      c.pacer(pacer);
      c.cancelledWithNoRoom(control.cancelledWithNoRoom());
      c.window(windowFor(windows, settings.addressFor(i)));
      contexts.add(c);
    }
    return contexts;
  }

  /**
   * One run's connect pacer; null in {@code SYNC}, which opens one connection at a time, and
   * where no address is TCP (an in-VM pipe has no listen queue to overflow).
   */
  final ConnectPacing.Pacer pacer(Ticker clock) {
    if (settings.mode().kind() == Mode.Kind.SYNC || !settings.connectPacing().paces()
        || settings.addresses().stream().noneMatch(a -> a instanceof java.net.InetSocketAddress)) {
      return null;
    }
    return settings.connectPacing().newPacer(clock);
  }

  /**
   * One run's connect windows, one per server address; null in {@code SYNC}, for
   * {@link ConnectWindow#NONE}, and where no address is TCP (as {@link #pacer}).
   */
  final ConnectWindow.Windows windows(Ticker clock) {
    if (settings.mode().kind() == Mode.Kind.SYNC || !settings.connectWindow().limits()
        || settings.addresses().stream().noneMatch(a -> a instanceof java.net.InetSocketAddress)) {
      return null;
    }
    return settings.connectWindow().newWindows(clock);
  }

  /**
   * The run's one clock: its connector's (a suspending connector's waits' clock, {@link
   * AbstractSuspendingConnector#suspendingWaitsTicker()}, or {@link Clocked#ticker()}), or the
   * system's for a connector that is neither. The connect pacing and the connect window read it in
   * every mode; in {@code CONTINUATIONS} the wait timer reads it too, so that every wait a run
   * computes is timed by the clock it was computed on.
   */
  final Ticker clock() {
    return clockOf(settings.connector());
  }

  static Ticker clockOf(Connector connector) {
    if (connector instanceof AbstractSuspendingConnector) {
      // What a session's connect checks its connector's clock against: the same source.
      return ((AbstractSuspendingConnector) connector).suspendingWaitsTicker();
    }
    if (connector instanceof Clocked) {
      Ticker t = ((Clocked) connector).ticker();
      if (t == null) {
        throw new IllegalStateException(connector + " answered no clock (Clocked.ticker() returned null)");
      }
      return t;
    }
    return Ticker.system();
  }

  /** The window of a session that connects to {@code address}: null without windows, or for an in-VM address. */
  static ConnectWindow.Window windowFor(ConnectWindow.Windows windows, java.net.SocketAddress address) {
    return windows == null || !(address instanceof java.net.InetSocketAddress) ? null : windows.forAddress(address);
  }

  final <T> RunResult<T> result(List<? extends SessionContext> contexts, long startNanos, RunControl control,
      ConnectWindow.Windows window) {
    long wall = System.nanoTime() - startNanos;
    boolean leftSome = control.unended() > 0;
    for (;;) {
      try {
        if (leftSome) {
          // An aborted run whose grace ran out: a started session that has no outcome yet gets
          // the one that says it was left behind (CANCELLED, with a SessionCancelledException of
          // its own; the one made with the run if there is no room), and its thread or fiber is
          // abandoned; every outcome is final from here (see SessionContext.leftBehind). An
          // indexed loop: no iterator.
          for (int i = 0; i < contexts.size(); i++) {
            contexts.get(i).leftBehind(RunControl.LEFT_BEHIND, control.leftBehind());
          }
        }
        ConnectWindow.Report report = window == null ? null : window.report();
        if (report != null && report.stalled()) {
          LOG.warn("{}: the connect window held sessions back for long ({}); a protocol whose first reply"
              + " comes late runs better with connectWindow(0)", settings.mode(), report);
        }
        return new RunResult<>(settings.mode(), outcomes(contexts), wall, startNanos, report);
      } catch (OutOfMemoryError e) {
        // After an abort the heap may still be full of what other sessions are giving back.
        control.waitForHeap(e, settings.closeWaitMillis());
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> List<Outcome<T>> outcomes(List<? extends SessionContext> contexts) {
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
      out.add(new Outcome<>(c.index(), status, (T) c.value(), c.failure(), c.connectStartNanos()));
    }
    return out;
  }
}
