package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.continuations.ConnectWindow;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The summary's {@code connect window} line (console, summary.json, HTML) says how the window's
 * size went: its first size, the largest and smallest it took, its size at the end, its halvings
 * and its regrowths. Windows driven on a clock moved by hand.
 */
class WindowSummaryTest {
  private static final long S = 1_000_000_000L;

  @Test
  void aHalvedDeepBacklogWindowSaysItsSizesHalvingsAndRegrowths() {
    long[] now = {5_000L};
    ConnectWindow.Window w = ConnectWindow.DEEP_BACKLOG.newWindow(() -> now[0]);
    fail(w);
    now[0] += S;
    fail(w);
    now[0] += ConnectWindow.REGROWTH_QUIET_NANOS;
    heard(w);
    assertEquals(ConnectWindow.DEEP_BACKLOG + "; 0 connects waited for a place, full for 0ns at most, 0 places freed"
        + " without word from the server, 2 connects failed; 128 at first, 128 at the largest, 32 at the smallest,"
        + " 64 at the end, halved 2 times, grew back 1 time", LoadRun.windowSummary(ConnectWindow.DEEP_BACKLOG, w.report()));
  }

  @Test
  void aWindowThatGrowsSaysItsSizesWithoutRegrowths() {
    ConnectWindow.Window w = ConnectWindow.DEFAULT.newWindow(() -> 0L);
    assertEquals(ConnectWindow.DEFAULT + "; 0 connects waited for a place, full for 0ns at most, 0 places freed"
        + " without word from the server, 0 connects failed; 32 at first, 32 at the largest, 32 at the smallest,"
        + " 32 at the end, halved 0 times", LoadRun.windowSummary(ConnectWindow.DEFAULT, w.report()));
  }

  @Test
  void aFixedWindowSaysNoSizes() {
    ConnectWindow fixed = ConnectWindow.of(3, Duration.ofSeconds(1));
    assertEquals(fixed + "; 0 connects waited for a place, full for 0ns at most, 0 places freed without word from the"
        + " server, 0 connects failed", LoadRun.windowSummary(fixed, fixed.newWindow(() -> 0L).report()));
  }

  private static void fail(ConnectWindow.Window w) {
    ConnectWindow.Slot s = w.tryEnter();
    s.connecting();
    s.connectFailed();
  }

  private static void heard(ConnectWindow.Window w) {
    ConnectWindow.Slot s = w.tryEnter();
    s.connecting();
    s.run();
  }
}
