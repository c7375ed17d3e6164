package io.weft.perf.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.weft.testsupport.RedisServerProcess;
import io.weft.testsupport.ServerBinaries;
import io.weft.transport.spi.VirtualThreads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The peers benchmark end to end at a tiny size against a real redis-server: every client runs,
 * and each does every round trip, counted by the client and by the server. No timing is
 * checked.
 */
class PeersBenchmarkTest {
  private static final Set<String> VIRTUAL_THREAD_CLIENTS =
      Set.of(ClientLabels.WEFT_VT_SOCKET, ClientLabels.WEFT_VT_MINA, ClientLabels.WEFT_VT_NETTY, ClientLabels.PLAIN_VT);

  @TempDir
  Path out;

  @Test
  void everyClientDoesEveryRoundTripAgainstRealRedis() throws Exception {
    requireBinary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);
    requireBinary(RedisBenchmarkClient.BINARY, "redis-tools");

    int exit = new CommandLine(new PeersBenchmark()).execute("--sessions", "10,20", "--rounds", "1",
        "--round-trips", "400", "--warmup-round-trips", "0", "--timeout-s", "60", "--out", out.toString());

    assertEquals(0, exit, "exit status");
    JsonNode json = new ObjectMapper().readTree(out.resolve(PeersFiles.JSON).toFile());
    List<String> seen = new ArrayList<>();
    for (JsonNode row : json.get("rows")) {
      String client = row.get("client").asText();
      int sessions = row.get("sessions").asInt();
      seen.add(sessions + " " + client);
      if (VIRTUAL_THREAD_CLIENTS.contains(client) && !VirtualThreads.available()) {
        assertEquals(PeersRow.SKIPPED, row.get("status").asText(), client);
        assertTrue(row.get("note").asText().contains("JDK 21+"), row.toString());
        continue;
      }
      assertEquals(PeersRow.OK, row.get("status").asText(), row.toString());
      assertEquals(400, row.get("expected_round_trips").asLong(), row.toString());
      assertEquals(400, row.get("completed_round_trips").asLong(), row.toString());
      assertEquals(400, row.get("server_incr_calls").asLong(), row.toString());
      assertEquals(0, row.get("failed_sessions").asInt(), row.toString());
    }
    assertEquals(22, seen.size(), "11 clients at 2 values of N: " + seen);
    assertEquals(22, Set.copyOf(seen).size(), "each client once per N: " + seen);
    assertEquals(23, Files.readAllLines(out.resolve(PeersFiles.CSV)).size(), "CSV header and one line per row");
    assertTrue(Files.readString(out.resolve(PeersFiles.MARKDOWN)).contains("## Targets"));
    assertTrue(Files.size(out.resolve(PeersFiles.THROUGHPUT_CHART)) > 0);
    assertEquals(14, json.get("targets").size(),
        "2 targets per N, the p99 one and the context switches per N, for continuations(1) over MINA and over Netty");
  }

  @Test
  void minaDefaultProcessorsClientDoesEveryRoundTripAgainstRealRedis() throws Exception {
    requireBinary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);

    int exit = new CommandLine(new PeersBenchmark()).execute("--sessions", "10", "--rounds", "1",
        "--round-trips", "400", "--warmup-round-trips", "0", "--clients", "cont1-pn,cont1", "--timeout-s", "60",
        "--out", out.toString());

    assertEquals(0, exit, "exit status");
    JsonNode json = new ObjectMapper().readTree(out.resolve(PeersFiles.JSON).toFile());
    List<String> seen = new ArrayList<>();
    for (JsonNode row : json.get("rows")) {
      seen.add(row.get("client").asText());
      assertEquals(PeersRow.OK, row.get("status").asText(), row.toString());
      assertEquals(400, row.get("completed_round_trips").asLong(), row.toString());
      assertEquals(400, row.get("server_incr_calls").asLong(), row.toString());
      assertEquals(0, row.get("failed_sessions").asInt(), row.toString());
    }
    assertEquals(Set.of("weft cont(1) mina, " + (Runtime.getRuntime().availableProcessors() + 1) + " processors",
        "weft cont(1) mina"), Set.copyOf(seen), "rows: " + seen);
    assertEquals(2, seen.size(), "one row per client: " + seen);
  }

  @Test
  void aRedisStartedByTheCallerIsUsedAndLeftRunning() throws Exception {
    requireBinary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);

    try (RedisServerProcess redis = RedisServerProcess.start(ServerBinaries.find(RedisServerProcess.BINARY),
        List.of("--maxclients", "128"));
         ServerIncrCounter counter = new ServerIncrCounter(redis.address())) {
      long before = counter.incrCalls();
      int exit = new CommandLine(new PeersBenchmark()).execute("--sessions", "10", "--rounds", "2",
          "--round-trips", "400", "--warmup-round-trips", "200", "--warmup-runs", "2", "--settle-jit-pct", "0",
          "--clients", "cont1-pn,netty",
          "--redis-address", redis.address().getHostString() + ":" + redis.address().getPort(), "--timeout-s", "60",
          "--out", out.toString());

      assertEquals(0, exit, "exit status");
      // 2 clients x (2 warm-ups of 200 + 2 rounds of 400), all served by this server, which still answers.
      assertEquals(2 * (2 * 200 + 2 * 400), counter.incrCalls() - before, "INCRs the caller's server served");
      String md = Files.readString(out.resolve(PeersFiles.MARKDOWN));
      assertTrue(md.contains("started by the caller"), "the environment says whose server it was");
      assertTrue(md.contains("## Spread over the rounds"), md);
    }
  }

  @Test
  void keepAliveRunsEachSessionOnOneConnectionForItsRequests() throws Exception {
    requireBinary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);

    // N=1: 300 INCRs on one connection; N=20: 20 x 300 would pass the cap of 2,000, so 100 each.
    int exit = new CommandLine(new PeersBenchmark()).execute("--workload", "keepalive", "--sessions", "1,20",
        "--keepalive-requests", "300", "--keepalive-max-round-trips", "2000", "--rounds", "1",
        "--warmup-round-trips", "0", "--clients", "cont1,cont1-netty,netty", "--timeout-s", "60",
        "--out", out.toString());

    assertEquals(0, exit, "exit status");
    JsonNode json = new ObjectMapper().readTree(out.resolve(PeersFiles.JSON).toFile());
    List<String> seen = new ArrayList<>();
    for (JsonNode row : json.get("rows")) {
      int sessions = row.get("sessions").asInt();
      seen.add(sessions + " " + row.get("client").asText());
      long expected = sessions == 1 ? 300 : 2000;
      assertEquals(PeersRow.OK, row.get("status").asText(), row.toString());
      assertEquals(expected, row.get("expected_round_trips").asLong(), row.toString());
      assertEquals(expected, row.get("server_incr_calls").asLong(), row.toString());
    }
    assertEquals(6, seen.size(), "3 clients at 2 values of N: " + seen);
    assertTrue(json.toString().contains("keep-alive"), "the workload is named in the environment");
  }

  @Test
  void eachClientInAJvmOfItsOwnDoesEveryRoundTripAndMeasuresItself() throws Exception {
    requireBinary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);

    int exit = new CommandLine(new PeersBenchmark()).execute("--jvm-per-client", "--sessions", "10", "--rounds", "2",
        "--round-trips", "400", "--warmup-round-trips", "200", "--clients", "cont1,netty", "--timeout-s", "60",
        "--out", out.toString());

    assertEquals(0, exit, "exit status");
    JsonNode json = new ObjectMapper().readTree(out.resolve(PeersFiles.JSON).toFile());
    List<String> seen = new ArrayList<>();
    for (JsonNode row : json.get("rows")) {
      seen.add(row.get("round").asInt() + " " + row.get("client").asText());
      assertEquals(PeersRow.OK, row.get("status").asText(), row.toString());
      assertEquals(400, row.get("completed_round_trips").asLong(), row.toString());
      assertEquals(400, row.get("server_incr_calls").asLong(), row.toString());
      // Figures only a JVM's client can give: an external client's row has none of them.
      assertTrue(row.hasNonNull("cpu_us_per_rt"), row.toString());
      assertTrue(row.get("peak_threads").asInt() > 0, row.toString());
      assertTrue(row.get("p99_us").asDouble() > 0, row.toString());
    }
    assertEquals(List.of("1 " + ClientLabels.CONT_1, "1 " + ClientLabels.NETTY, "2 " + ClientLabels.NETTY,
        "2 " + ClientLabels.CONT_1), seen, "the rows, in the rounds' rotating order");
    String jvms = json.get("environment").get("clients' JVMs").asText();
    assertTrue(jvms.startsWith("one per client"), jvms);
    java.util.regex.Matcher pid = java.util.regex.Pattern.compile("pid (\\d+)").matcher(jvms);
    Set<Long> pids = new java.util.HashSet<>();
    while (pid.find()) {
      pids.add(Long.parseLong(pid.group(1)));
    }
    assertEquals(3, pids.size(), "two clients' JVMs and this one, all different: " + jvms);
    assertTrue(jvms.endsWith("this JVM pid " + ProcessHandle.current().pid() + ")"), jvms);
  }

  @Test
  void aClientWarmsUpAgainUntilItsJitHasSettledOrItsMostRuns() throws Exception {
    requireBinary(RedisServerProcess.BINARY, RedisServerProcess.DEBIAN_PACKAGE);

    try (RedisServerProcess redis = RedisServerProcess.start(ServerBinaries.find(RedisServerProcess.BINARY),
        List.of("--maxclients", "128"));
         ServerIncrCounter counter = new ServerIncrCounter(redis.address())) {
      long before = counter.incrCalls();
      // A JVM of its own, new: its first warm-up compiles the client's code, so the JIT takes more
      // than a millionth of that run's CPU, and at least one more warm-up follows.
      int exit = new CommandLine(new PeersBenchmark()).execute("--jvm-per-client", "--sessions", "10", "--rounds", "1",
          "--round-trips", "400", "--warmup-round-trips", "200", "--warmup-runs", "1", "--settle-jit-pct", "0.0001",
          "--max-warmup-runs", "3", "--clients", "netty",
          "--redis-address", redis.address().getHostString() + ":" + redis.address().getPort(), "--timeout-s", "60",
          "--out", out.toString());

      assertEquals(0, exit, "exit status");
      long warmups = (counter.incrCalls() - before - 400) / 200;
      assertTrue(warmups >= 2 && warmups <= 3, "warm-up runs: " + warmups + " (1 asked, then until settled, 3 at most)");
      JsonNode row = new ObjectMapper().readTree(out.resolve(PeersFiles.JSON).toFile()).get("rows").get(0);
      assertTrue(row.hasNonNull("jit_cpu_pct") && row.get("jit_cpu_pct").asDouble() >= 0, row.toString());
    }
  }

  @Test
  void fewerMostWarmUpsThanWarmUpsIsRefused() {
    java.io.StringWriter err = new java.io.StringWriter();
    CommandLine cl = new CommandLine(new PeersBenchmark());
    cl.setErr(new java.io.PrintWriter(err));
    int exit = cl.execute("--warmup-runs", "3", "--max-warmup-runs", "2", "--out", out.toString());

    assertEquals(2, exit);
    assertTrue(err.toString().contains("--max-warmup-runs at least --warmup-runs"), err.toString());
  }

  @Test
  void aChildJvmsOwnOutputDoesNotConfuseItsReplies() throws Exception {
    // The JVM's own logging on the child's standard output, where its replies go too.
    try (ForkedClient client = new ForkedClient("netty", List.of("-verbose:gc", "-Xlog:gc*:stdout"))) {
      assertEquals(ClientLabels.NETTY, client.label());
      PeerWorkload workload = new PeerWorkload(new java.net.InetSocketAddress("127.0.0.1", 1), 1, 1, 1, 1, 5,
          java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(null, client.unavailableReason(workload));
    }
  }

  @Test
  void aClientWhoseJvmHasEndedIsAnErrorNotASkip() throws Exception {
    ForkedClient client = new ForkedClient("netty");
    client.close();
    PeerWorkload workload = new PeerWorkload(new java.net.InetSocketAddress("127.0.0.1", 1), 1, 1, 1, 1, 5,
        java.util.concurrent.TimeUnit.SECONDS);

    java.io.UncheckedIOException e = assertThrows(java.io.UncheckedIOException.class,
        () -> client.unavailableReason(workload));
    assertTrue(e.getMessage().contains("client netty") || e.getCause().getMessage().contains("client netty")
        || e.getCause() instanceof IOException, e.toString());
  }

  @Test
  void aClientWhoseJvmEndsIsAnErrorNamingIt() {
    IOException e = assertThrows(IOException.class, () -> new ForkedClient("no-such-client"));

    assertTrue(e.getMessage().contains("the JVM of client no-such-client ended its replies (exit status 1)"),
        e.getMessage());
  }

  @Test
  void unknownClientIsRefusedBeforeAnythingStarts() {
    int exit = new CommandLine(new PeersBenchmark()).execute("--clients", "cont1,nope", "--out", out.toString());

    assertEquals(2, exit);
    assertTrue(!Files.exists(out.resolve(PeersFiles.JSON)));
  }

  private static void requireBinary(String binary, String debianPackage) {
    if (ServerBinaries.find(binary) == null) {
      String message = ServerBinaries.missingMessage(binary, debianPackage);
      if (ServerBinaries.inCi()) {
        throw new AssertionError(message);
      }
      Assumptions.abort(message);
    }
  }
}
