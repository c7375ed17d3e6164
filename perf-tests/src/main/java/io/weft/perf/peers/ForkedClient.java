package io.weft.perf.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.weft.perf.internal.ChildProcesses;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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
  /**
   * What starts each of the child's replies on its standard output, which the JVM itself may write
   * to too ({@code -Xlog}, {@code -verbose:gc}): every other line is passed on to standard error.
   */
  static final String REPLY = "@peers-reply ";
  /** How long a reply may take beyond the run's own time limit (JVM start, warm-up of a new JVM). */
  private static final long SLACK_NANOS = TimeUnit.SECONDS.toNanos(120);

  private final String id;
  private final Process process;
  private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
  private final Writer requests;
  private final String label;
  private final long pid;

  ForkedClient(String id) throws IOException {
    this(id, List.of());
  }

  /** A child with {@code moreOptions} after this JVM's own (for tests). */
  ForkedClient(String id, List<String> moreOptions) throws IOException {
    this.id = id;
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(childOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    command.addAll(moreOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(PeerChild.class.getName());
    command.add(id);
    ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
    // Their options are among this JVM's input arguments already, which the child is given.
    builder.environment().remove("JAVA_TOOL_OPTIONS");
    builder.environment().remove("JDK_JAVA_OPTIONS");
    builder.environment().remove("_JAVA_OPTIONS");
    process = builder.start();
    Thread reader = new Thread(this::readReplies, "peers-child-" + id);
    reader.setDaemon(true);
    reader.start();
    requests = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    try {
      JsonNode hello = reply(SLACK_NANOS);
      label = hello.get("label").asText();
      pid = process.pid();
    } catch (IOException | RuntimeException e) {
      process.destroyForcibly();
      throw e;
    }
  }

  /** The child's standard output: its replies queued, every other line passed on to standard error. */
  private void readReplies() {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(REPLY)) {
          replies.add(line.substring(REPLY.length()));
        } else {
          System.err.println("[" + id + "] " + line);
        }
      }
    } catch (IOException e) {
      // The child is gone; reply() says so.
    }
  }

  /** The child's process id, for the report. */
  long pid() {
    return pid;
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

  /** @throws UncheckedIOException when the child fails: a benchmark with a client gone ends, it does not skip it */
  @Override
  public String unavailableReason(PeerWorkload workload) {
    try {
      JsonNode reason = ask("unavailable", workload, SLACK_NANOS).get("reason");
      return reason == null || reason.isNull() ? null : reason.asText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
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
    JsonNode r = ask("run", workload, workload.timeoutNanos + SLACK_NANOS);
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

  private JsonNode ask(String op, PeerWorkload workload, long waitNanos) throws IOException {
    ObjectNode request = JSON.createObjectNode().put("op", op)
        .put("host", workload.redis.getHostString()).put("port", workload.redis.getPort())
        .put("concurrency", workload.concurrency).put("totalSessions", workload.totalSessions)
        .put("requestsPerSession", workload.requestsPerSession).put("keys", workload.keys)
        .put("timeoutNanos", workload.timeoutNanos);
    requests.write(request + "\n");
    requests.flush();
    return reply(waitNanos);
  }

  /**
   * The child's next reply, within {@code waitNanos}: a child that ends first, or that has not
   * answered by then (it is then ended), is an {@code IOException} naming it.
   */
  private JsonNode reply(long waitNanos) throws IOException {
    String line;
    try {
      long deadline = System.nanoTime() + waitNanos;
      line = null;
      while (line == null) {
        line = replies.poll(100, TimeUnit.MILLISECONDS);
        if (line == null && !process.isAlive() && replies.isEmpty()) {
          throw new IOException("the JVM of client " + id + " ended its replies (exit status " + process.exitValue()
              + "); its output is above");
        }
        if (line == null && System.nanoTime() - deadline > 0) {
          process.destroyForcibly();
          throw new IOException("the JVM of client " + id + " did not answer within "
              + TimeUnit.NANOSECONDS.toSeconds(waitNanos) + " s; ended it");
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("waiting for the JVM of client " + id);
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
    ChildProcesses.stop(process, requests, "{\"op\":\"close\"}");
  }
}
