package io.weft.load.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StagesTest {
  @Test
  void constantRatePutsArrivalJAtJOverRate() {
    Stages s = Stages.constant(100, 2);
    assertEquals(200, s.arrivals());
    assertEquals(0.0, s.arrivalSeconds(0), 1e-12);
    assertEquals(0.5, s.arrivalSeconds(50), 1e-12);
    assertEquals(1.99, s.arrivalSeconds(199), 1e-9);
    assertTrue(Double.isNaN(s.arrivalSeconds(200)));
  }

  @Test
  void rampHoldAndRampDownMakeTheIntegralOfTheRate() {
    Stages s = Stages.parse(List.of("30s:0->5000", "2m:5000", "30s:5000->0"));
    assertEquals(75_000 + 600_000 + 75_000, s.arrivals());
    assertEquals(180.0, s.seconds(), 1e-9);
    // Halfway through the ramp up a quarter of its arrivals have come: t = sqrt(2 n d / r).
    assertEquals(15.0, s.arrivalSeconds(18_750), 1e-6);
    assertEquals(30.0, s.arrivalSeconds(75_000), 1e-6);
    assertEquals(30.0 + 1 / 5000.0, s.arrivalSeconds(75_001), 1e-9);
    double last = -1;
    for (long j = 0; j < s.arrivals(); j += 997) {
      double t = s.arrivalSeconds(j);
      assertTrue(t >= last, "arrivals in order at " + j);
      last = t;
    }
    assertTrue(s.arrivalSeconds(s.arrivals() - 1) <= 180.0);
  }

  @Test
  void badStagesAreRefusedNamingThem() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Stages.parse(List.of("30:fast")));
    assertTrue(e.getMessage().contains("30:fast"));
  }
}
