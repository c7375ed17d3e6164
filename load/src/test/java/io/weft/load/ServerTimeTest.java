package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.weft.load.internal.LoadRun;
import io.weft.load.internal.LoadSpec;
import io.weft.load.internal.Results;
import io.weft.load.testscenario.BatchEchoScenario;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server time of an operation is read from its transport's stamps, from the last send in the
 * operation to the first byte after it, in the run's clock: a {@link SteppingEchoPeer} moves a
 * {@link ManualTicker} on by 1 ms before each echo, and nothing else moves it. An operation of
 * three exchanges then takes 3 ms, of which the last exchange's server time is 1 ms and the
 * client's own time (the operation less that) 2 ms: the first two exchanges, seen from the last.
 */
@ParameterizedClass(name = "{0}")
@ValueSource(strings = {"threads", "continuations:1"})
@Timeout(120)
class ServerTimeTest {
  private static final long MS = 1_000_000L;

  @Parameter String mode;

  @Test
  void serverTimeRunsFromTheLastSendInAnOperationToTheFirstByteAfterIt() throws Exception {
    ManualTicker clock = new ManualTicker(-5_000L * MS);
    Results r;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (SteppingEchoPeer peer = new SteppingEchoPeer(clock, MS)) {
      LoadSpec spec = new LoadSpec();
      spec.scenarioClass = BatchEchoScenario.class.getName();
      spec.params.put("lines", "3");
      spec.mode = RunOptions.parseMode(mode);
      spec.addresses.add(peer.server.address());
      spec.users = 1;
      spec.iterations = 4;
      spec.quiet = true;
      spec.ticker = clock;
      r = LoadRun.run(spec, new PrintStream(out, true, StandardCharsets.UTF_8));
    }
    String said = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, r.totalErrors(), said);
    Results.Op batch = r.ops.get("batch");
    assertEquals(4, batch.latency.getTotalCount(), said);
    assertEquals(same(batch.latency, 3 * MS), same(batch.latency, batch.latency.getMinValue()), said);
    assertEquals(same(batch.latency, 3 * MS), same(batch.latency, batch.latency.getMaxValue()), said);
    assertNotNull(batch.server, "server time recorded: " + said);
    assertEquals(4, batch.server.getTotalCount(), said);
    assertEquals(same(batch.server, MS), same(batch.server, batch.server.getMinValue()), said);
    assertEquals(same(batch.server, MS), same(batch.server, batch.server.getMaxValue()), said);
    assertEquals(same(batch.client, 2 * MS), same(batch.client, batch.client.getMinValue()), said);
    assertEquals(same(batch.client, 2 * MS), same(batch.client, batch.client.getMaxValue()), said);
  }

  private static long same(org.HdrHistogram.Histogram h, long value) {
    return h.lowestEquivalentValue(value);
  }
}
