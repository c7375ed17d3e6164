package io.weft.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.samples.simulation.FlakyCounter;
import io.weft.simulation.SimulationResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The simulation sample: its clients get through the partition, and its first line is the seed's. */
class FlakyCounterTest {
  private static String firstLineBarWall(long seed, int sessions) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    SimulationResult<Long> result = FlakyCounter.run(seed, sessions, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    assertTrue(result.allSucceeded(), result.report());
    // the partition from 5 s to 25 s held the clients up: the run went on past it
    assertTrue(result.virtualNanos() > 25_000_000_000L, result.summary());
    String first = bytes.toString(StandardCharsets.UTF_8).lines().findFirst().orElseThrow();
    assertTrue(first.startsWith("simulation seed=" + seed + " sessions=" + sessions + " events="), first);
    return first.substring(0, first.indexOf(" wall="));
  }

  @Test
  void theSameSeedPrintsTheSameLineAndAnotherSeedAnotherHash() {
    String a = firstLineBarWall(42, 200);
    assertEquals(a, firstLineBarWall(42, 200));
    String b = firstLineBarWall(43, 200);
    assertNotEquals(a.substring(a.indexOf("log-sha256=")), b.substring(b.indexOf("log-sha256=")));
  }
}
