package io.weft.perf.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.HdrHistogram.Histogram;

/**
 * The JVM of one client under {@code PeersBenchmark --jvm-per-client}: makes the client named by
 * its argument, then answers the benchmark's requests, one JSON object per line on standard input
 * and one reply per line on standard output ({@link ForkedClient} is the other end). It measures
 * its own runs with {@link CostMeter}, as the benchmark measures an in-process client, so that
 * the CPU, context switches, heap and threads are this client's alone. Whatever the client prints
 * goes to standard error.
 */
final class PeerChild {
  private PeerChild() {}

  public static void main(String[] args) throws Exception {
    PrintStream replies = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    System.setOut(System.err);
    ObjectMapper json = new ObjectMapper();
    PeerClient client = PeersBenchmark.newClient(args[0]);
    try (CostMeter probe = new CostMeter();
         BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      replies.println(ForkedClient.REPLY + json.createObjectNode().put("label", client.label()));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        JsonNode request = json.readTree(line);
        String op = request.get("op").asText();
        if ("close".equals(op)) {
          break;
        }
        PeerWorkload workload = ForkedClient.workload(request);
        ObjectNode reply = json.createObjectNode();
        if ("unavailable".equals(op)) {
          reply.put("reason", client.unavailableReason(workload));
        } else {
          // A level start, as the benchmark gives an in-process client.
          System.gc();
          CostMeter.Reading start = probe.start();
          ClientRun run = client.run(workload);
          write(reply, run, probe.end(start));
        }
        replies.println(ForkedClient.REPLY + reply);
      }
    } finally {
      client.close();
    }
  }

  private static void write(ObjectNode reply, ClientRun run, CostMeter.Figures figures) {
    reply.put("failedSessions", run.failedSessions);
    reply.put("firstFailure", run.firstFailure);
    reply.put("wallNanos", run.wallNanos);
    Histogram latency = run.latency;
    ByteBuffer buffer = ByteBuffer.allocate(latency.getNeededByteBufferCapacity());
    int length = latency.encodeIntoCompressedByteBuffer(buffer);
    reply.put("latency", Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length)));
    reply.put("cpuNanos", figures.cpuNanos);
    reply.put("contextSwitches", figures.contextSwitches);
    reply.put("voluntarySwitches", figures.voluntarySwitches);
    reply.put("peakHeapAfterGcBytes", figures.peakHeapAfterGcBytes);
    reply.put("peakThreads", figures.peakThreads);
    reply.put("switchesUnreadable", figures.switchesUnreadable);
    reply.put("jitCpuNanos", figures.jitCpuNanos);
  }
}
