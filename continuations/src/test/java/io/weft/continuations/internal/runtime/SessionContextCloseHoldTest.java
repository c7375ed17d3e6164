package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testing.LinesOnlyTransport;
import io.weft.transport.Timeout;
import io.weft.transport.spi.ReportsClose;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A session's place is held by its task and, over a transport that reports its close, by that
 * close. A transport whose watcher registration fails part-way (the library's listener could
 * not be added, say for want of heap) may have kept the watcher: its later report must not free
 * the place while the task still runs; the task's end frees it, as without a report.
 */
class SessionContextCloseHoldTest {

  /** Keeps the watcher, then fails, as a registration that failed after its first step. */
  static final class HalfRegisteringTransport extends LinesOnlyTransport implements ReportsClose {
    final Error failure = new OutOfMemoryError("injected: the close listener could not be added");
    Runnable kept;

    @Override
    public void whenClosed(Runnable closed) {
      kept = closed;
      throw failure;
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

  @Test
  void aCloseReportFromAFailedRegistrationNeverFreesThePlaceWhileTheTaskRuns() {
    AtomicInteger freed = new AtomicInteger();
    SessionContext context = new SessionContext(0, null, null, Timeout.NONE, null);
    context.whenFreedByClose(freed::incrementAndGet);
    HalfRegisteringTransport transport = new HalfRegisteringTransport();

    Error thrown = assertThrows(OutOfMemoryError.class, () -> context.opened(transport));
    assertSame(transport.failure, thrown);
    transport.kept.run();
    assertEquals(0, freed.get(), "a close report freed the place of a session whose task still runs");
    assertTrue(context.taskEnded(), "the task's end frees the place");
    transport.kept.run();
    assertEquals(0, freed.get(), "the place was freed twice");
  }
}
