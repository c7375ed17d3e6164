package io.weft.continuations.internal.runtime;

import io.weft.continuations.runtime.spi.SelfCheckingTransport;
import io.weft.continuations.spi.SessionCancelledException;
import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.SuspendingConnectionTransport;
import io.weft.transport.Transport;
import io.weft.transport.spi.HeapExhaustion;
import java.io.IOException;
import org.apache.commons.javaflow.core.StackRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bottom frame of every session: connect, run the task, close, record the outcome.
 *
 * <p>In {@code CONTINUATIONS} mode the {@code ContinuationClassLoader} defines its own copy of
 * this class and rewrites {@link #run()}, so it is the instrumented {@code Runnable} handed to
 * {@code Continuation.startWith}; in the other modes the ordinary class runs on a thread. Keep
 * this code free of lambdas: its calls to {@code Connector.connect} and {@code SessionTask.run}
 * must be direct interface calls for the engine to rewrite them.
 */
public final class SessionFrame implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(SessionFrame.class);
  /**
   * Where the failures reported below were met. Not constants, so that their literals are made
   * as this class loads: a literal's first use allocates, and here that is when the heap has run
   * out, in the report that must tell the runs.
   */
  private static final String A_SESSION;
  private static final String CLOSING;
  private static final String CANCELLED_BEFORE_CONNECT;

  static {
    A_SESSION = "a session";
    CLOSING = "a session closing its transport";
    CANCELLED_BEFORE_CONNECT = " cancelled before it connected";
    // Links the stamp's call as the class loads, not first in a catch with the heap full.
    HeapExhaustion.stamp();
  }

  private final SessionContext session;

  public SessionFrame(SessionContext session) {
    this.session = session;
  }

  @Override
  public void run() {
    Transport transport = null;
    session.started();
    try {
      if (!session.mustNotConnect()) {
        // A place in the run's connect window first (at most so many sessions connected and not
        // yet heard from), then the pacing turn: the place is held from before the SYN (its hold
        // bound starts at the connect). A session cancelled while it waited takes no place.
        while (!session.mustNotConnect() && !session.enterWindow()) {
          try {
            Suspend.await(session.windowWaiter(), session.windowWaitNanos());
          } finally {
            session.windowWaited();
          }
        }
      }
      if (!session.mustNotConnect()) {
        long wait = session.connectWaitNanos();
        if (wait > 0L) {
          Suspend.await(SessionContext.NEVER, wait);
        }
      }
      if (session.mustNotConnect()) {
        // Cancelled, or left behind by its run, before it came here (a thread started late, a
        // pacing wait): no connection, no task. Its run may be over, and what runs now is not
        // its business.
        Throwable why;
        try {
          why = new SessionCancelledException("session " + session.index() + CANCELLED_BEFORE_CONNECT);
        } catch (OutOfMemoryError e) {
          // No room for its own: the one made ahead (with its run), not the error, which this
          // session did not meet (it connected nothing, so nothing adds to that exception).
          why = session.cancelledWithNoRoom();
          if (why == null) {
            // None made ahead (a context made outside a run): the error is all there is.
            why = e;
          }
        }
        session.failed(why);
        return;
      }
      session.connecting();
      try {
        transport = session.connector().connect(session.address(), session.timeout());
      } catch (IOException e) {
        if (!(e instanceof SessionCancelledException)) {
          // A growing connect window halves: the server refused, or its queue dropped the handshake.
          session.connectFailed();
        }
        throw e;
      }
      session.opened(transport);
      // A transport that makes the entry check itself is handed over as it is: one frame less on
      // every suspend and resume. The MINA and Netty ones do (Suspend.checkEntry, first thing in
      // each read, write, flush and startTls), as the simulation's does.
      Transport forTask = session.checked() && !(transport instanceof SelfCheckingTransport)
          && !(transport instanceof SuspendingConnectionTransport) ? new CheckedTransport(transport) : transport;
      Object value = session.task().run(forTask, session.index());
      session.succeeded(value);
    } catch (Throwable failure) {
      // Before anything is looked at: the report below reaches only the runs watching now. A run
      // that leaves this session behind after the look, and a run begun after that, are not this
      // error's business however late the report comes (a full collection can stop this thread
      // for seconds between the look and the report).
      long metAt = HeapExhaustion.stamp();
      boolean death;
      try {
        death = SessionContext.isContinuationDeath(failure);
      } catch (OutOfMemoryError e) {
        // No room to tell: the engine's signal is no OutOfMemoryError, and the heap ran out.
        death = false;
      }
      if (death) {
        // The engine's own unwinding on terminate(): not a failure of the session.
        throw (Error) failure;
      }
      Throwable outcome = failure;
      try {
        outcome = cancelled(unwrapped(failure));
      } catch (OutOfMemoryError e) {
        // No room to wrap it: the failure as it came.
      }
      session.failed(outcome);
      // Once the outcome is in: the abort that may follow cancels the other sessions, and this
      // one keeps the error it met. Not for a session its run left behind: the run is over, and
      // what it meets late must not abort the runs under way now (a real exhaustion then is met
      // by their own threads, or by the watches).
      if (!session.isLeftBehind()) {
        HeapExhaustion.report(failure, A_SESSION, metAt);
      }
    } finally {
      try {
        // Heard from or not, a session whose connect failed or whose task ended holds no place
        // in the window (nor waits for one, if it was cancelled waiting): the next one may go.
        session.leaveWindow();
      } catch (Throwable e) {
        // The window's hand-over catches a wake-up's OutOfMemoryError (a virtual thread's
        // unpark; that session is stranded) and tries no other waiter: the place is free all the
        // same (its slot was given back first), and a waiter not woken looks again at its wait's
        // bound (the clock's a hold at most, the others ConnectWindow.Waiter.UNTIMED_HOLDS
        // holds). Whatever else escapes here must not skip the close below.
      }
      if (transport != null) {
        // Read before the close: a cancel's close under way when this one comes makes this one
        // return at once, and if that close then runs out of heap it keeps the transport again.
        int kept = session.closesKept();
        try {
          transport.close();
          session.released(kept);
        } catch (OutOfMemoryError e) {
          long metAt = HeapExhaustion.stamp();
          // The session has its outcome, and the run is told. The transport stays with the
          // session: a close that failed part of the way has not reported the connection
          // closed, which holds the session's place in the run, and the aborted run's cancels
          // close it again (see SessionContext.cancel); kept again here, before the report,
          // in case a cancel during this close let it go.
          session.closeRanOutOfHeap(transport);
          if (!session.isLeftBehind() && !HeapExhaustion.report(e, CLOSING, metAt)) {
            // Not the heap (direct buffer memory, no native thread): no abort will cancel this
            // session again, so its place must not wait for a close report that may never come.
            session.closeFailed();
          }
          // But an abort cancels once, and it may have cancelled this session while its close was
          // under way (that cancel's close then did nothing): close again now, the report having
          // given the heap's reserve back. Still no room: the transport stays for the cancels.
          try {
            kept = session.closesKept();
            transport.close();
            session.released(kept);
          } catch (OutOfMemoryError | RuntimeException again) {
            // Left to the run's cancels, or to the runner's close wait.
          }
        } catch (RuntimeException e) {
          // A close that failed otherwise may never report the connection closed, and nothing
          // would close it again in a run that goes on: the task's end frees the session's place,
          // as over a transport that does not report its close. The session keeps the outcome
          // its task gave, in every mode alike (in SYNC the error would otherwise end the run).
          session.closeFailed();
          if (!session.addToFailure(e)) {
            LOG.warn("closing session {}'s transport failed after its task ended", session.index(), e);
          }
        } catch (Error e) {
          session.closeFailed();
          throw e;
        }
      }
    }
    StackRecorder recorder = StackRecorder.get();
    boolean capturing = recorder != null && (recorder.isCapturing || !recorder.isEmpty());
    if (capturing || session.swallowError() != null) {
      // A suspend was swallowed by a frame that was not rewritten, and the session ran on to
      // its end (or to an exception) on wrong values; or Weft failed the session with a
      // NotInstrumentedError that its code caught (wrapped by reflection, under catch
      // Exception). Whatever it recorded is not its outcome. End a capturing continuation
      // quietly instead of letting the engine log "stack corruption".
      Throwable recorded = session.failure();
      Throwable error = session.swallowError() != null ? session.swallowError()
          : recorded instanceof io.weft.continuations.NotInstrumentedError
          ? recorded : FrameChecker.swallowedSuspend(session.index());
      if (recorded != null && recorded != error) {
        error.addSuppressed(recorded);
      }
      session.failedHard(error);
      if (capturing) {
        StackRecorder.exit();
      }
    }
  }

  /**
   * A cancelled session's transport failure is the cancel's doing (its transport was closed
   * under it): report it as {@link SessionCancelledException}, the same in every mode, with what
   * the transport threw as the cause.
   */
  private Throwable cancelled(Throwable failure) {
    if (!session.isCancelled() || !(failure instanceof IOException) || failure instanceof SessionCancelledException) {
      return failure;
    }
    SessionCancelledException e = new SessionCancelledException("session " + session.index() + " cancelled");
    e.initCause(failure);
    return e;
  }

  /**
   * A NotInstrumentedError that reflection wrapped (InvocationTargetException, an undeclared
   * throwable) on its way out of the task: the session's outcome is the error itself, so that
   * no caller's {@code catch (Exception e)} can mistake it for an ordinary failure.
   */
  private static Throwable unwrapped(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof io.weft.continuations.NotInstrumentedError) {
        return t;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return failure;
  }
}
