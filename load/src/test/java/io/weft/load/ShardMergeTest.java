package io.weft.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.testsupport.EchoServer;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two shards of a run, merged from their interval logs, count exactly what the run unsharded
 * counts: in the closed model the users are split, in the open model the arrivals.
 */
class ShardMergeTest {
  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"closed", "open"})
  void mergedShardsCountWhatTheSingleRunCounts(String model) throws Exception {
    try (EchoServer echo = EchoServer.tcp()) {
      String target = "127.0.0.1:" + ((InetSocketAddress) echo.address()).getPort();
      String[] workload = model.equals("closed")
          ? new String[] {"-u", "5", "-n", "7"}
          : new String[] {"--rate", "150", "-d", "1s", "--max-sessions", "5"};
      long single = count(run(target, workload, null, "single"));
      Runs a = run(target, workload, "0/2", "a");
      Runs b = run(target, workload, "1/2", "b");
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int exit = WeftLoad.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), "merge",
          new File(a.out, "intervals.hlog").getPath(), new File(b.out, "intervals.hlog").getPath(),
          "-o", new File(dir.toFile(), "merged").getPath());
      assertEquals(0, exit, bytes.toString(StandardCharsets.UTF_8));
      JsonNode merged = new ObjectMapper().readTree(new File(dir.toFile(), "merged/summary.json"));
      assertEquals(single, merged.at("/operations/echo/count").asLong(), bytes.toString(StandardCharsets.UTF_8));
      assertEquals(count(a) + count(b), single);
      assertEquals(model.equals("closed") ? 35 : 150, single);
      assertEquals(model, merged.at("/model").asText());
      assertEquals(5, merged.at("/users").asLong());
    }
  }

  @org.junit.jupiter.api.Test
  void mergedShardsKeepTheErrorsOfEachInterval() throws Exception {
    try (GarbageServer garbage = new GarbageServer()) {
      String target = "127.0.0.1:" + garbage.port();
      String[] workload = {"-u", "2", "-d", "1500ms"};
      Runs a = failingRun(target, workload, "0/2", "ea");
      Runs b = failingRun(target, workload, "1/2", "eb");
      long errors = a.summary().at("/errors").asLong() + b.summary().at("/errors").asLong();
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      int exit = WeftLoad.run(new PrintStream(bytes, true, StandardCharsets.UTF_8), "merge",
          new File(a.out, "intervals.hlog").getPath(), new File(b.out, "intervals.hlog").getPath(),
          "-o", new File(dir.toFile(), "emerged").getPath());
      String said = bytes.toString(StandardCharsets.UTF_8);
      assertEquals(3, exit, said);
      JsonNode merged = new ObjectMapper().readTree(new File(dir.toFile(), "emerged/summary.json"));
      assertEquals(errors, merged.at("/errors").asLong(), said);
      long perInterval = 0;
      for (JsonNode i : merged.at("/timeline")) {
        perInterval += i.at("/errors").asLong();
      }
      org.junit.jupiter.api.Assertions.assertTrue(errors > 0, said);
      assertEquals(errors, perInterval, "the merged timeline's intervals carry every error: " + merged.at("/timeline"));
    }
  }

  private Runs failingRun(String target, String[] workload, String shard, String name) {
    String[] base = {"redis", "-t", target, "--mode", "continuations:1", "-q", "--shard", shard};
    String[] args = new String[base.length + workload.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(workload, 0, args, base.length, workload.length);
    Runs r = Runs.run(new File(dir.toFile(), name), args);
    assertEquals(3, r.exit, r::toString);
    return r;
  }

  private static long count(Runs r) throws Exception {
    return r.summary().at("/operations/echo/count").asLong();
  }

  private Runs run(String target, String[] workload, String shard, String name) {
    String[] base = {"line", "-t", target, "--mode", "continuations:1", "-q"};
    String[] args = new String[base.length + workload.length + (shard == null ? 0 : 2)];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(workload, 0, args, base.length, workload.length);
    if (shard != null) {
      args[args.length - 2] = "--shard";
      args[args.length - 1] = shard;
    }
    Runs r = Runs.run(new File(dir.toFile(), name), args);
    assertEquals(0, r.exit, r::toString);
    return r;
  }
}
