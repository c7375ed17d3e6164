package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.spi.SessionCancelledException;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/**
 * A session's outcome has one writer: the first of its own outcome ({@code succeeded},
 * {@code failed}) and the run's "left behind" mark, under the context's monitor. A mark never
 * replaces an outcome the session is recording, and nothing the session's thread does after the
 * mark (a late outcome, a late error, a close that fails) changes the outcome the run returned.
 * Each session left behind has an exception of its own.
 */
class SessionContextOutcomeTest {
  private static final String WHY = "left behind: test";
  private static final SessionCancelledException MADE_AHEAD = new SessionCancelledException("made ahead");

  private static SessionContext started(int index) {
    SessionContext c = new SessionContext(index, null, null, null, null);
    c.started();
    return c;
  }

  @Test
  // A watchdog only: the mark is waited for below, and on code where it does not wait for the
  // outcome being recorded it has simply ended first.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aLeftBehindMarkThatComesWhileTheSessionRecordsItsOutcomeKeepsThatOutcome() throws Exception {
    SessionContext c = started(0);
    Thread marker = new Thread(() -> c.leftBehind(WHY, MADE_AHEAD), "marker");
    // The session is recording its outcome (it holds the context's monitor, as succeeded() does
    // from its check to its last write) when the run's thread comes to mark it left behind.
    synchronized (c) {
      marker.start();
      // Until the mark waits for the monitor (or, where it takes none, has run to its end).
      Thread.State s;
      while ((s = marker.getState()) != Thread.State.BLOCKED && s != Thread.State.TERMINATED) {
        Thread.onSpinWait();
      }
      c.succeeded("done");
    }
    marker.join();
    assertTrue(c.isFinished());
    assertFalse(c.isCancelled(), "a session that succeeded was marked cancelled");
    assertNull(c.failure(), "a session that succeeded got a failure");
    assertEquals("done", c.value());
  }

  @Test
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aLeftBehindMarkThatComesWhileTheSessionRecordsItsFailureKeepsThatFailure() throws Exception {
    SessionContext c = started(0);
    IOException own = new IOException("its own");
    Thread marker = new Thread(() -> c.leftBehind(WHY, MADE_AHEAD), "marker");
    synchronized (c) {
      marker.start();
      Thread.State s;
      while ((s = marker.getState()) != Thread.State.BLOCKED && s != Thread.State.TERMINATED) {
        Thread.onSpinWait();
      }
      c.failed(own);
    }
    marker.join();
    assertFalse(c.isCancelled(), "a session that failed was marked cancelled");
    assertSame(own, c.failure());
  }

  @Test
  void nothingTheSessionDoesAfterTheMarkChangesItsOutcome() {
    SessionContext c = started(3);
    c.leftBehind(WHY, MADE_AHEAD);
    SessionCancelledException why = assertInstanceOf(SessionCancelledException.class, c.failure());
    assertEquals(WHY, why.getMessage());
    c.succeeded("late");
    c.failed(new IOException("late"));
    // A swallowed suspend found after the run gave up on the session: not its outcome any more.
    c.failedHard(new IllegalStateException("late and hard"));
    // Its close failing late: not added to the failure the caller holds.
    assertFalse(c.addToFailure(new IllegalStateException("close failed late")));
    assertTrue(c.isCancelled());
    assertSame(why, c.failure());
    assertNull(c.value());
    assertEquals(0, why.getSuppressed().length);
  }

  @Test
  void anOutcomeRecordedBeforeTheMarkStaysAndIsFinalAfterIt() {
    SessionContext c = started(0);
    IOException own = new IOException("its own");
    c.failed(own);
    c.leftBehind(WHY, MADE_AHEAD);
    assertFalse(c.isCancelled());
    assertSame(own, c.failure());
    c.failedHard(new IllegalStateException("late and hard"));
    assertFalse(c.addToFailure(new IllegalStateException("close failed late")));
    assertSame(own, c.failure());
    assertEquals(0, own.getSuppressed().length);
    // Before any mark, a late close failure is added to the session's failure, as always.
    SessionContext d = started(1);
    d.failed(own);
    IllegalStateException late = new IllegalStateException("close failed");
    assertTrue(d.addToFailure(late));
    assertSame(late, own.getSuppressed()[0]);
  }

  @Test
  void eachSessionLeftBehindHasAnExceptionOfItsOwnAndOneNeverStartedNone() {
    SessionContext a = started(0);
    SessionContext b = started(1);
    SessionContext never = new SessionContext(2, null, null, null, null);
    a.leftBehind(WHY, MADE_AHEAD);
    b.leftBehind(WHY, MADE_AHEAD);
    never.leftBehind(WHY, MADE_AHEAD);
    assertInstanceOf(SessionCancelledException.class, a.failure());
    assertInstanceOf(SessionCancelledException.class, b.failure());
    assertNotSame(a.failure(), b.failure());
    assertNotSame(MADE_AHEAD, a.failure());
    assertNull(never.failure());
    assertFalse(never.isFinished());
  }
}
