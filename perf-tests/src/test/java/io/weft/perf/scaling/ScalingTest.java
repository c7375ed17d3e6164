package io.weft.perf.scaling;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;
import org.junit.jupiter.api.io.TempDir;
class ScalingTest {
  @TempDir
  Path dir;

  @Test
  void smallRunMeasuresEveryModeThroughTheRunnerAndWritesTheResultsFolder() throws Exception {
    Scaling.Options options = Scaling.Options.parse("--sessions", "20,50",
        "--modes", "callback,threads,virtual_threads,continuations(1),continuations(2)",
        "--transports", "pipe,tcp", "--warmup", "20", "--warmup-rounds", "1", "--tcp-hosts", "2",
        "--out", dir.toString());
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    List<ScalingResult> results =
        Scaling.run(options, new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertEquals(2 * 2 * 5, results.size());
    boolean virtualThreads = Runtime.version().feature() >= 21;
    for (ScalingResult r : results) {
      if (r.mode.equals("VIRTUAL_THREADS") && !virtualThreads) {
        assertEquals(0, r.completed);
        assertTrue(r.note.contains("JDK 21"), r.note);
        continue;
      }
      // Every session did its exchanges and had every echo checked (a wrong one fails it).
      assertTrue(r.ranCleanly(), r.mode + " " + r.transport + ": " + r.note);
      assertEquals("", r.note, r.mode + " " + r.transport);
      assertTrue(r.eventsPerSecond > 0);
      assertTrue(r.p99Micros >= r.p50Micros && r.maxMicros >= r.p99Micros);
      assertFalse(Double.isNaN(r.heapBytesPerSession), "heap probe for " + r.mode);
      if (r.mode.startsWith("CONTINUATIONS")) {
        // k workers, not a thread per session: 50 sessions would show as 50+ threads.
        assertTrue(r.peakThreads < r.sessions + 10 || r.sessions < 50, r.mode + " threads " + r.peakThreads);
      }
      if (r.mode.equals("THREADS")) {
        assertTrue(r.peakThreads >= r.sessions, "a thread per session: " + r.peakThreads);
      }
    }
    String table = printed.toString(StandardCharsets.UTF_8);
    assertTrue(table.contains("CONTINUATIONS_2"), table);
    assertTrue(table.contains("ideal = transactions x delay"), table);
    for (String name : List.of("scaling.csv", "scaling.json", "scaling.txt",
        "events-per-second-pipe.png", "p99-latency-pipe.png", "events-per-second-tcp.png",
        "p99-latency-tcp.png")) {
      assertTrue(Files.size(dir.resolve(name)) > 0, name);
    }
    assertEquals(1 + results.size(), Files.readAllLines(dir.resolve("scaling.csv")).size());
  }

  @Test
  void aModeThatStartsOnlySomeSessionsOpensTheGateOnAStallAndSaysSo() throws Exception {
    Scaling.Options options = Scaling.Options.parse("--sessions", "20", "--transports", "pipe",
        "--warmup", "0", "--out", dir.toString());
    options.modes = List.of("HALF");
    CallbackDriver callback = new CallbackDriver(1);
    SessionDriver half = new SessionDriver() {
      @Override
      public String name() {
        return "HALF";
      }

      @Override
      public String unavailableReason(Workload workload) {
        return null;
      }

      @Override
      public RunReport run(Workload w) throws Exception {
        RunReport ran = callback.run(new Workload(w.transport, w.servers, w.sessions / 2,
            w.transactions, w.connectsInFlight, w.timeoutNanos, TimeUnit.NANOSECONDS, w.latency));
        return new RunReport(ran.completed, ran.failed, ran.firstFailure, ran.wallNanos,
            "out of test threads after " + w.sessions / 2);
      }

      @Override
      public void close() {
        callback.close();
      }
    };
    List<ScalingResult> results = Scaling.run(options,
        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), name -> half);

    ScalingResult r = results.get(0);
    assertEquals(10, r.completed);
    assertTrue(r.note.contains("gate opened with 10 of 20 sessions waiting"), r.note);
    assertTrue(r.note.contains("stopped: out of test threads after 10"), r.note);
    assertTrue(Double.isNaN(r.heapBytesPerSession), "no heap figure without every session waiting");
  }

  @Test
  void optionsRefuseUnknownNamesAndBadNumbers() {
    assertThrows(ParameterException.class, () -> Scaling.Options.parse("--bogus", "1"));
    assertThrows(ParameterException.class, () -> Scaling.Options.parse("--sessions", "0"));
    assertThrows(ParameterException.class, () -> Scaling.Options.parse("--modes", "fibers"));
    assertThrows(ParameterException.class, () -> Scaling.Options.parse("--delay-ms"));
  }

  @Test
  void optionsTakeBothSpellings() {
    Scaling.Options options = Scaling.Options.parse("--sessions=100,100_000", "--delay-ms", "0",
        "--modes=VIRTUAL,CONTINUATIONS(2)", "--no-heap");
    assertEquals(List.of(100, 100_000), options.sessions);
    assertEquals(0, options.delayMs);
    assertEquals(List.of("VIRTUAL_THREADS", "CONTINUATIONS_2"), options.modes);
    assertFalse(options.heap);
  }

  @Test
  void runnerModesSayWhyTheyCannotRun() {
    Workload twenty = new Workload(TransportKind.PIPE,
        List.of(new org.apache.mina.transport.vmpipe.VmPipeAddress(1)), 20, 1, 1, 1,
        TimeUnit.SECONDS, new io.weft.perf.internal.ExchangeLatency());
    try (RunnerDriver threads = RunnerDriver.threads(10, 1)) {
      assertTrue(threads.unavailableReason(twenty).contains("--max-threads cap of 10"),
          threads.unavailableReason(twenty));
    }
    try (RunnerDriver continuations = RunnerDriver.continuations(2, 1)) {
      assertEquals("CONTINUATIONS_2", continuations.name());
      assertEquals(null, continuations.unavailableReason(twenty));
    }
    try (RunnerDriver virtual = RunnerDriver.virtualThreads(1)) {
      assertEquals(Runtime.version().feature() >= 21, virtual.unavailableReason(twenty) == null,
          String.valueOf(virtual.unavailableReason(twenty)));
    }
  }
}
