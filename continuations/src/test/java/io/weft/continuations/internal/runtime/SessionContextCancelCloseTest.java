package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testing.ForwardingTransport;
import io.weft.continuations.testing.LinesOnlyTransport;
import io.weft.transport.Timeout;
import io.weft.transport.spi.ReportsClose;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A cancel's close of a session's transport is under way when the session frame's own close comes
 * (which then returns at once, doing nothing, as {@code InboundState.close} does), and the cancel's
 * close then fails. The frame reads {@link SessionContext#closesKept()} before its close and hands it
 * to {@link SessionContext#released(int)} after: each order of the cancel's failure and the frame's
 * release is made here step by step, on a transport whose closes are scripted. For want of heap,
 * the transport must stay with the session for the aborted run's next cancel to close (which reports
 * the close and frees the place); otherwise (a RuntimeException) nothing closes it again, and the
 * task's end frees the place. Before, the frame forgot the transport whatever came after, and the
 * cancel's failure kept nothing: the next cancel closed nothing, the close was never reported, and
 * the place was held for ever (CancelDuringCloseTest has the whole run).
 */
class SessionContextCancelCloseTest {

  /**
   * Close 1 (the cancel's) enters, waits for {@code fail}, then throws; later closes close it, and
   * its close is reported when the test says ({@link #report}), as a library's I/O thread reports it
   * after the close returned.
   */
  static final class ScriptedClose extends LinesOnlyTransport implements ReportsClose {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch fail = new CountDownLatch(1);
    final AtomicInteger closes = new AtomicInteger();
    final RuntimeException runtimeFailure;
    Runnable watcher;

    ScriptedClose(RuntimeException runtimeFailure) {
      this.runtimeFailure = runtimeFailure;
    }

    @Override
    public void whenClosed(Runnable closed) {
      watcher = closed;
    }

    @Override
    public void close() {
      if (closes.incrementAndGet() == 1) {
        entered.countDown();
        ForwardingTransport.awaitUninterruptibly(fail);
        if (runtimeFailure != null) {
          throw runtimeFailure;
        }
        throw new OutOfMemoryError("Java heap space");
      }
    }

    void report() {
      watcher.run();
    }

    @Override
    public void writeLine(String line) {}

    @Override
    public String readLine(int limit) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String readLineStrict(int limit) {
      throw new UnsupportedOperationException();
    }
  }

  /** The context of a session whose task ended with its transport's close under way by a cancel on another thread. */
  private static final class Case {
    final AtomicInteger freed = new AtomicInteger();
    final SessionContext context = new SessionContext(0, null, null, Timeout.NONE, null);
    final ScriptedClose transport;
    final AtomicReference<Throwable> cancelThrew = new AtomicReference<>();
    final Thread canceller;

    Case(RuntimeException runtimeFailure) throws InterruptedException {
      transport = new ScriptedClose(runtimeFailure);
      context.whenFreedByClose(freed::incrementAndGet);
      context.opened(transport);
      canceller = new Thread(() -> {
        try {
          context.cancel();
        } catch (Throwable t) {
          cancelThrew.set(t);
        }
      }, "canceller");
      canceller.start();
      transport.entered.await();
    }

    /** The cancel's close fails now; returns once the canceller is done. */
    void cancelFails() throws InterruptedException {
      transport.fail.countDown();
      canceller.join();
    }
  }

  @Test
  void whenTheCancelsCloseRunsOutOfHeapBeforeTheFrameLetsGoTheNextCancelClosesIt() throws Exception {
    Case c = new Case(null);
    // The frame: its close came while the cancel's was under way, and returned.
    int kept = c.context.closesKept();
    c.context.succeeded("done");
    c.cancelFails();
    assertInstanceOf(OutOfMemoryError.class, c.cancelThrew.get());
    c.context.released(kept);
    assertFalse(c.context.taskEnded(), "the place was freed with the connection's close unreported");

    c.context.cancel();
    assertEquals(2, c.transport.closes.get(), "the next cancel did not close the transport again");
    c.transport.report();
    assertEquals(1, c.freed.get(), "the close's report did not free the place");
  }

  @Test
  void whenTheFrameLetsGoBeforeTheCancelsCloseRunsOutOfHeapTheNextCancelClosesIt() throws Exception {
    Case c = new Case(null);
    int kept = c.context.closesKept();
    c.context.succeeded("done");
    c.context.released(kept);
    c.cancelFails();
    assertInstanceOf(OutOfMemoryError.class, c.cancelThrew.get());
    assertFalse(c.context.taskEnded(), "the place was freed with the connection's close unreported");

    c.context.cancel();
    assertEquals(2, c.transport.closes.get(), "the next cancel did not close the transport again");
    c.transport.report();
    assertEquals(1, c.freed.get(), "the close's report did not free the place");
  }

  @Test
  void whenTheCancelsCloseThrowsOtherwiseTheTasksEndFreesThePlaceInEitherOrder() throws Exception {
    for (boolean frameFirst : new boolean[] {true, false}) {
      Case c = new Case(new IllegalStateException("close refused"));
      int kept = c.context.closesKept();
      c.context.succeeded("done");
      if (frameFirst) {
        c.context.released(kept);
        c.cancelFails();
      } else {
        c.cancelFails();
        c.context.released(kept);
      }
      assertInstanceOf(IllegalStateException.class, c.cancelThrew.get());
      assertTrue(c.context.taskEnded(), "frame first " + frameFirst + ": the place waits for a close nothing makes");
      c.context.cancel();
      assertEquals(1, c.transport.closes.get(), "frame first " + frameFirst + ": a finished session kept its transport");
    }
  }

  @Test
  void whileTheTaskRunsACancelsCloseThatThrowsLeavesThePlaceToTheConnectionsClose() throws Exception {
    Case c = new Case(new IllegalStateException("close refused"));
    c.cancelFails();
    assertInstanceOf(IllegalStateException.class, c.cancelThrew.get());
    // The task ends later; the frame's own close closes the connection, whose close is reported after.
    int kept = c.context.closesKept();
    c.transport.close();
    c.context.released(kept);
    assertFalse(c.context.taskEnded(), "the task's end freed the place before the connection's close was reported");
    assertEquals(0, c.freed.get());
    c.transport.report();
    assertEquals(1, c.freed.get(), "the close's report did not free the place");
  }
}
