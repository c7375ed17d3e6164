package io.weft.perf.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** What the benchmark reads from redis-benchmark's CSV and redis-server's INFO. */
class ReportParsingTest {
  @Test
  void redisBenchmarkCsvGivesTheIncrLine() {
    String csv = "\"test\",\"rps\",\"avg_latency_ms\",\"min_latency_ms\",\"p50_latency_ms\",\"p95_latency_ms\","
        + "\"p99_latency_ms\",\"max_latency_ms\"\n"
        + "\"INCR\",\"76923.08\",\"0.710\",\"0.200\",\"0.607\",\"1.399\",\"2.031\",\"3.983\"\n";

    String[] f = RedisBenchmarkClient.incrLine(csv);

    assertEquals("76923.08", f[1]);
    assertEquals("0.607", f[4]);
    assertEquals("2.031", f[6]);
  }

  @Test
  void redisBenchmarkOutputWithoutIncrGivesNull() {
    assertNull(RedisBenchmarkClient.incrLine("\"test\",\"rps\"\n\"PING_INLINE\",\"1.0\"\n"));
  }

  @Test
  void incrCallsComeFromTheCmdstatIncrLine() {
    String info = "# Commandstats\r\ncmdstat_info:calls=3,usec=50,usec_per_call=16.67\r\n"
        + "cmdstat_incr:calls=200400,usec=150000,usec_per_call=0.75,rejected_calls=0,failed_calls=0\r\n";

    assertEquals(200_400L, ServerIncrCounter.incrCalls(info));
    assertEquals(0L, ServerIncrCounter.incrCalls("# Commandstats\r\ncmdstat_info:calls=1\r\n"));
  }
}
