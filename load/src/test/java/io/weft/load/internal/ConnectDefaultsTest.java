package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.ConnectWindow;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A run's default connect pacing and window. Where a connect window is in force it bounds what
 * the server's listen queue holds, so the run is not paced on top of it (10,000 users at 500 a
 * second took 20 s at the least); without one (the open model, {@code --connect-window 0}) the
 * run is paced as before. {@code --connect-rate 0} still means every user at once, with no window.
 */
class ConnectDefaultsTest {
  private static LoadSpec tcp() {
    return new LoadSpec();
  }

  @Test
  void aClosedModelRunHasTheWindowAndNoPace() {
    LoadSpec spec = tcp();
    assertSame(ConnectWindow.DEFAULT, spec.window());
    assertSame(ConnectPacing.NONE, spec.pacing());
  }

  @Test
  void aDeepBacklogRunHasTheDeepWindowAndNoPace() {
    LoadSpec spec = tcp();
    spec.deepBacklog = true;
    assertSame(ConnectWindow.DEEP_BACKLOG, spec.window());
    assertEquals(128, spec.window().sessions());
    assertSame(ConnectPacing.NONE, spec.pacing());
  }

  @Test
  void aWindowGivenByTheUserIsNotPacedEither() {
    LoadSpec spec = tcp();
    spec.connectWindow = ConnectWindow.of(8, Duration.ofSeconds(1));
    assertEquals(8, spec.window().sessions());
    assertSame(ConnectPacing.NONE, spec.pacing());
  }

  @Test
  void withoutAWindowTheRunIsPacedAsBefore() {
    LoadSpec off = tcp();
    off.connectWindow = ConnectWindow.NONE;
    assertSame(ConnectWindow.NONE, off.window());
    assertSame(ConnectPacing.DEFAULT, off.pacing());
    LoadSpec open = tcp();
    open.stages = Stages.constant(100, 2);
    assertSame(ConnectWindow.NONE, open.window());
    assertSame(ConnectPacing.DEFAULT, open.pacing());
  }

  @Test
  void aRateOfNoneConnectsEveryoneAtOnceWithoutAWindow() {
    LoadSpec spec = tcp();
    spec.deepBacklog = true;
    spec.connectPacing = ConnectPacing.NONE;
    assertSame(ConnectWindow.NONE, spec.window());
    assertSame(ConnectPacing.NONE, spec.pacing());
  }

  @Test
  void aRateGivenByTheUserKeepsTheWindow() {
    LoadSpec spec = tcp();
    spec.deepBacklog = true;
    ConnectPacing given = ConnectPacing.perSecond(20_000, 1_000);
    spec.connectPacing = given;
    assertSame(ConnectWindow.DEEP_BACKLOG, spec.window());
    assertSame(given, spec.pacing());
  }

  @Test
  void theInVmPipeHasNeither() {
    LoadSpec spec = tcp();
    spec.vmPipe = true;
    assertSame(ConnectWindow.NONE, spec.window());
    assertSame(ConnectPacing.NONE, spec.pacing());
  }

  /**
   * A cap ({@code --connect-window-max}) keeps the deep window's least size, 32 (or the cap if
   * lower), whatever the cap: 128, the docs' advice for a {@code somaxconn} of 128, halves to 32
   * as 129 does (review R2: 128 was a fixed window that never halved, 129 halved to 32).
   */
  @Test
  void aCapKeepsTheDeepWindowsLeastSizeWhateverItIs() {
    LoadSpec spec = tcp();
    spec.deepBacklog = true;
    int[][] capFirstLeastMax = {{129, 128, 32, 129}, {128, 128, 32, 128}, {64, 64, 32, 64}, {32, 32, 32, 32},
        {20, 20, 20, 20}, {200, 128, 32, 200}, {256, 128, 32, 256}, {300, 128, 32, 300}};
    for (int[] c : capFirstLeastMax) {
      spec.connectWindowMax = c[0];
      ConnectWindow w = spec.window();
      assertEquals(c[1], w.sessions(), w::toString);
      assertEquals(c[2], w.leastSessions(), w::toString);
      assertEquals(c[3], w.maxSessions(), w::toString);
    }
    spec.connectWindowMax = 128;
    assertEquals("128 sessions (halving to 32 at the least), held 1000 ms at most", spec.window().toString());
    spec.connectWindowMax = 200;
    assertEquals("128 sessions growing to 200 (halving to 32 at the least), held 1000 ms at most",
        spec.window().toString());
    // The closed model's default window (32 growing to 48) capped: its least is its first size.
    LoadSpec plain = tcp();
    plain.connectWindowMax = 256;
    assertEquals("32 sessions growing to 256, held 1000 ms at most", plain.window().toString());
    // At or below its own cap of 48 the cap is lowered, never raised past what was asked.
    plain.connectWindowMax = 40;
    assertEquals("32 sessions growing to 40, held 1000 ms at most", plain.window().toString());
    plain.connectWindowMax = 32;
    assertEquals("32 sessions, held 1000 ms at most", plain.window().toString());
    plain.connectWindowMax = 16;
    assertEquals("16 sessions, held 1000 ms at most", plain.window().toString());
  }
}
