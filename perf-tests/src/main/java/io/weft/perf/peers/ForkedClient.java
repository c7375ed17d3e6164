package io.weft.perf.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * An in-process client run in a JVM of its own ({@code PeersBenchmark --jvm-per-client}), as a
 * user runs the client they picked: its JIT profiles, heap and threads are its own, not shared
 * with the other clients of the benchmark, whose code (Netty's pipeline, say, which the callback
 * client and the continuations over Netty both run) would otherwise be compiled for all of them
 * at once. The child ({@link PeerChild}) is started once, with this JVM's options and class path,
 * and kept for the whole benchmark, warm-ups and every round, as an in-process client is; it
 * measures each run itself, so the row's CPU, context switches, heap and threads are the child's.
 */
final class ForkedClient implements PeerClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String id;
  private final Process process;
  private final BufferedReader replies;
  private final Writer requests;
  private final String label;

  ForkedClient(String id) throws IOException {
    this.id = id;
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(childOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(PeerChild.class.getName());
    command.add(id);
    process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    replies = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    requests = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    label = reply().get("label").asText();
  }

  /**
   * This JVM's options for the child, but those that must not be shared by two JVMs: an agent (a
   * profiler writing to one file, a debugger's port) and a flight recording.
   */
  static List<String> childOptions(List<String> options) {
    List<String> kept = new ArrayList<>();
    for (String option : options) {
      if (!option.startsWith("-agentpath:") && !option.startsWith("-agentlib:") && !option.startsWith("-javaagent:")
          && !option.startsWith("-XX:StartFlightRecording") && !option.startsWith("-XX:FlightRecorderOptions")) {
        kept.add(option);
      }
    }
    return kept;
  }

  @Override
  public String label() {
    return label;
  }

  @Override
  public String unavailableReason(PeerWorkload workload) {
    try {
      JsonNode reason = ask("unavailable", workload).get("reason");
      return reason == null || reason.isNull() ? null : reason.asText();
    } catch (IOException e) {
      return "its JVM failed: " + e.getMessage();
    }
  }

  @Override
  public boolean inProcess() {
    return false;
  }

  @Override
  public boolean measuresItsJit() {
    return true;
  }

  @Override
  public ClientRun run(PeerWorkload workload) throws IOException {
    JsonNode r = ask("run", workload);
    Histogram latency;
    try {
      latency = Histogram.decodeFromCompressedByteBuffer(
          ByteBuffer.wrap(Base64.getDecoder().decode(r.get("latency").asText())), 0);
    } catch (DataFormatException e) {
      throw new IOException("the JVM of " + id + " sent a latency histogram that does not decode", e);
    }
    CostMeter.Figures figures = new CostMeter.Figures(r.get("cpuNanos").asLong(), r.get("contextSwitches").asLong(),
        r.get("voluntarySwitches").asLong(), r.get("peakHeapAfterGcBytes").asLong(), r.get("peakThreads").asInt(),
        text(r.get("switchesUnreadable")), r.get("jitCpuNanos").asLong());
    return ClientRun.forked(r.get("failedSessions").asInt(), text(r.get("firstFailure")), r.get("wallNanos").asLong(),
        latency, figures);
  }

  private static String text(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText();
  }

  private JsonNode ask(String op, PeerWorkload workload) throws IOException {
    ObjectNode request = JSON.createObjectNode().put("op", op)
        .put("host", workload.redis.getHostString()).put("port", workload.redis.getPort())
        .put("concurrency", workload.concurrency).put("totalSessions", workload.totalSessions)
        .put("requestsPerSession", workload.requestsPerSession).put("keys", workload.keys)
        .put("timeoutNanos", workload.timeoutNanos);
    requests.write(request + "\n");
    requests.flush();
    return reply();
  }

  private JsonNode reply() throws IOException {
    String line = replies.readLine();
    if (line == null) {
      String exit;
      try {
        exit = process.waitFor(10, TimeUnit.SECONDS) ? "exit status " + process.exitValue() : "still running";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        exit = "interrupted while waiting for it";
      }
      throw new IOException("the JVM of client " + id + " ended its replies (" + exit + "); its output is above");
    }
    return JSON.readTree(line);
  }

  /** The workload of a request. */
  static PeerWorkload workload(JsonNode request) {
    return new PeerWorkload(new InetSocketAddress(request.get("host").asText(), request.get("port").asInt()),
        request.get("concurrency").asInt(), request.get("totalSessions").asInt(),
        request.get("requestsPerSession").asInt(), request.get("keys").asInt(), request.get("timeoutNanos").asLong(),
        TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    try {
      requests.write("{\"op\":\"close\"}\n");
      requests.flush();
      requests.close();
    } catch (IOException e) {
      // It has ended already.
    }
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
