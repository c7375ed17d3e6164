package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weft.transport.spi.Ticker;
import org.junit.jupiter.api.Test;

/** The connect pacer's schedule, on a clock the test moves: a burst at once, then the rate. */
class ConnectPacingTest {
  private long now = 1_000_000_000L;
  private final Ticker clock = () -> now;

  @Test
  void aBurstGoesAtOnceThenEachTurnIsOneIntervalLater() {
    ConnectPacing.Pacer pacer = ConnectPacing.perSecond(1_000, 3).newPacer(clock);
    assertEquals(0L, pacer.reserve());
    assertEquals(0L, pacer.reserve());
    assertEquals(0L, pacer.reserve());
    assertEquals(1_000_000L, pacer.reserve());
    assertEquals(2_000_000L, pacer.reserve());
    now += 2_000_000L;
    // The two reserved turns are still ahead of it: the next is 1 ms after the last of them.
    assertEquals(1_000_000L, pacer.reserve());
  }

  @Test
  void aQuietSpellRefillsTheBurstButNoMore() {
    ConnectPacing.Pacer pacer = ConnectPacing.perSecond(100, 2).newPacer(clock);
    for (int i = 0; i < 10; i++) {
      pacer.reserve();
    }
    now += 10_000_000_000L;
    assertEquals(0L, pacer.reserve());
    assertEquals(0L, pacer.reserve());
    assertEquals(10_000_000L, pacer.reserve());
  }

  @Test
  void tenThousandTurnsAtTheDefaultTakeTwentySeconds() {
    ConnectPacing.Pacer pacer = ConnectPacing.DEFAULT.newPacer(clock);
    long last = 0;
    for (int i = 0; i < 10_000; i++) {
      last = pacer.reserve();
    }
    // The first 10 at once, then one each 2 ms.
    assertEquals((10_000L - ConnectPacing.DEFAULT_BURST) * 2_000_000L, last);
  }

  @Test
  void noneNeverWaits() {
    ConnectPacing.Pacer pacer = ConnectPacing.NONE.newPacer(clock);
    for (int i = 0; i < 1_000; i++) {
      assertEquals(0L, pacer.reserve());
    }
  }

  @Test
  void refusesARateThatIsNotPositiveAndAnEmptyBurst() {
    assertThrows(IllegalArgumentException.class, () -> ConnectPacing.perSecond(0, 1));
    assertThrows(IllegalArgumentException.class, () -> ConnectPacing.perSecond(Double.NaN, 1));
    assertThrows(IllegalArgumentException.class, () -> ConnectPacing.perSecond(10, 0));
  }
}
