package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weft.load.internal.LoadRun;
import io.weft.load.internal.LoadSpec;
import io.weft.load.internal.Results;
import io.weft.load.testscenario.SignallingEchoScenario;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The closed model's measured window in the run's own clock: a {@link SteppingEchoPeer} moves a
 * {@link ManualTicker} on by 1 ms per echo and nothing else moves it, so which exchanges fall in
 * the warm-up and where the duration ends are exact, whatever the machine's load.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"threads", "continuations:1"})
@Timeout(120)
class MeasuredWindowTest {
  private static final long MS = 1_000_000L;
  private static final long START = -3_000_000_000_000L;

  @Parameter String mode;
  @TempDir Path dir;

  @Test
  void warmUpExchangesRunUnrecordedAndTheDurationCountsFromTheWindowsStart() throws Exception {
    ManualTicker clock = new ManualTicker(START);
    Results r;
    long sent;
    try (SteppingEchoPeer peer = new SteppingEchoPeer(clock, MS)) {
      LoadSpec spec = new LoadSpec();
      spec.scenarioClass = SignallingEchoScenario.class.getName();
      spec.mode = RunOptions.parseMode(mode);
      spec.addresses.add(peer.server.address());
      spec.users = 1;
      spec.warmupNanos = 10 * MS;
      spec.durationNanos = 20 * MS;
      spec.quiet = true;
      spec.outDir = new File(dir.toFile(), "window");
      spec.ticker = clock;
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      r = LoadRun.run(spec, new PrintStream(out, true, StandardCharsets.UTF_8));
      assertEquals(0, r.totalErrors(), () -> out.toString(StandardCharsets.UTF_8));
      sent = peer.echoes();
    }
    // Exchange i runs from i to i + 1 ms after the first began. The window opens at 10 ms: the
    // exchanges that end from then on, i >= 9, are recorded. A user starts another iteration
    // while less than 20 ms of the window has passed: after i < 30 exchanges.
    assertEquals(30, sent);
    Results.Op echo = r.ops.get("echo");
    assertEquals(21, echo.latency.getTotalCount());
    assertEquals(echo.latency.lowestEquivalentValue(MS), echo.latency.lowestEquivalentValue(echo.latency.getMaxValue()));
    assertEquals(0.020, r.seconds, 1e-12, "the window's length");
  }
}
