package io.weft.continuations.internal.runtime;

import io.weft.transport.spi.HeapExhaustion;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cancels of one run's sessions, the same in every mode (THREADS and VIRTUAL_THREADS, SYNC,
 * CONTINUATIONS' scheduler): each session is cancelled ({@link SessionContext#cancel()}, which
 * closes its transport) whatever the close of another throws, since one session's close failing
 * must not spare the others; a close that throws is logged once per run. An aborted run is
 * cancelled again and again while it waits, on a heap that may have no room: nothing here
 * allocates (indexed loops, no iterator), and a close that finds no room is left to the next pass.
 * One per run, made with it.
 */
public final class SessionCancels {
  private static final Logger LOG = LoggerFactory.getLogger(SessionCancels.class);
  /** For the report; not a constant, so that its literal is made as the class loads, not when the heap is full. */
  private static final String CANCELLING;

  static {
    CANCELLING = "a cancel closing a session";
  }

  /** Set once a close's throw has been logged: once per run. */
  private volatile boolean threwLogged;

  /**
   * Cancels {@code sessions} in order, asking {@code goesOn} (null: always) before each: a pass
   * whose run is over, or whose thread was replaced after it stalled in a close, stops there.
   *
   * @return false if {@code goesOn} stopped the pass
   * @throws VirtualMachineError other than {@link OutOfMemoryError}, met by a close: not the
   *     session's (a {@code StackOverflowError}, an {@code InternalError}), the canceller's to handle
   */
  public boolean cancel(List<? extends SessionContext> sessions, BooleanSupplier goesOn) {
    for (int i = 0; i < sessions.size(); i++) {
      if (goesOn != null && !goesOn.getAsBoolean()) {
        return false;
      }
      cancel(sessions.get(i));
    }
    return true;
  }

  /**
   * Cancels {@code session}: what its close throws goes no further, but a
   * {@link VirtualMachineError} other than {@link OutOfMemoryError}.
   */
  public void cancel(SessionContext session) {
    try {
      session.cancel();
    } catch (OutOfMemoryError e) {
      // No room (a wake-up, a close): told, so that a run cancelled by its caller is aborted (a
      // close that ran out of heap part of the way may have left the connection open), and an
      // aborted run is cancelled again at the next pass.
      HeapExhaustion.report(e, CANCELLING);
    } catch (RuntimeException e) {
      // Its close threw: the others are cancelled all the same.
      threw(e);
    } catch (Error e) {
      if (e instanceof VirtualMachineError) {
        // Not the session's (StackOverflowError, InternalError): the canceller's to handle.
        throw e;
      }
      // Its close failed with a LinkageError (a class whose initialiser once ran out of heap
      // there), an AssertionError: the others are cancelled all the same.
    }
  }

  /**
   * A cancel of this run met {@code e} (a session's close threw) and went on: logged once per
   * run, if there is room to log it. From any thread that cancels.
   */
  public void threw(RuntimeException e) {
    if (!threwLogged) {
      threwLogged = true;
      try {
        LOG.warn("cancelling a session of an aborted or cancelled run threw; the cancels go on"
            + " (logged once per run)", e);
      } catch (OutOfMemoryError | RuntimeException again) {
        // No room (or the logger failed): the cancels go on all the same.
      }
    }
  }
}
