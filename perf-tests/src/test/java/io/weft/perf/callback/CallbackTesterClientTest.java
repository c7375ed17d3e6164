package io.weft.perf.callback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.EchoServer;
import io.weft.perf.internal.ExchangeLatency;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
class CallbackTesterClientTest {
  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  @Test
  void everySessionCompletesOverThePipe() throws Exception {
    ExchangeLatency latency = new ExchangeLatency();
    try (EchoServer server = EchoServer.vmPipe();
        CallbackTesterClient client = CallbackTesterClient.overPipe()) {
      CallbackTesterClient.Result result =
          client.run(server.addresses(), 200, 10, latency, 30, TimeUnit.SECONDS, 50);
      assertEquals(200, result.completed, result::toString);
      assertEquals(0, result.failed, result::toString);
      assertTrue(result.allEnded);
      assertEquals(2000, server.linesReceived());
    }
    assertEquals(2000, latency.intervalHistogram().getTotalCount());
  }

  @Test
  void everySessionCompletesOverTcpWithDelayedReplies() throws Exception {
    ExchangeLatency latency = new ExchangeLatency();
    try (EchoServer server = EchoServer.builder().delay(1, TimeUnit.MILLISECONDS).startTcp();
        CallbackTesterClient client = CallbackTesterClient.overTcp(2)) {
      CallbackTesterClient.Result result =
          client.run(server.addresses(), 100, 10, latency, 30, TimeUnit.SECONDS, 20);
      assertEquals(100, result.completed, result::toString);
      assertNull(result.firstFailure);
    }
    Histogram histogram = latency.intervalHistogram();
    assertEquals(1000, histogram.getTotalCount());
    // Not a performance check: a delayed reply cannot come back before the delay.
    assertTrue(histogram.getMinValue() >= TimeUnit.MILLISECONDS.toNanos(1),
        "min " + histogram.getMinValue());
  }

  @Test
  void sessionsSpreadOverSeveralServerAddresses() throws Exception {
    try (EchoServer server = EchoServer.builder().loopbackHosts(2).startTcp();
        CallbackTesterClient client = CallbackTesterClient.overTcp(1)) {
      assertEquals(2, server.addresses().size());
      CallbackTesterClient.Result result =
          client.run(server.addresses(), 40, 3, new ExchangeLatency(), 30, TimeUnit.SECONDS, 10);
      assertEquals(40, result.completed, result::toString);
    }
  }

  @Test
  void wrongEchoFailsTheSessionQuotingTheReply() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 50, LOOPBACK);
        CallbackTesterClient client = CallbackTesterClient.overTcp(1)) {
      Thread peer = serve(listener, 3, (in, out) -> {
        in.readLine();
        out.write("nope\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        in.readLine();
      });
      CallbackTesterClient.Result result = client.run(
          List.of(listener.getLocalSocketAddress()), 3, 10, new ExchangeLatency(), 30, TimeUnit.SECONDS, 3);
      peer.join(10_000);
      assertEquals(0, result.completed, result::toString);
      assertEquals(3, result.failed);
      assertTrue(result.firstFailure.contains("but got \"nope\""), result.firstFailure);
    }
  }

  @Test
  void peerClosingEarlyFailsTheSessionSayingHowFarItGot() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 50, LOOPBACK);
        CallbackTesterClient client = CallbackTesterClient.overTcp(1)) {
      Thread peer = serve(listener, 1, (in, out) -> {
        String line = in.readLine();
        out.write((line + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        in.readLine();
      });
      CallbackTesterClient.Result result = client.run(
          List.of(listener.getLocalSocketAddress()), 1, 10, new ExchangeLatency(), 30, TimeUnit.SECONDS, 1);
      peer.join(10_000);
      assertEquals(1, result.failed, result::toString);
      assertTrue(result.firstFailure.contains("after 1 of 10 exchanges"), result.firstFailure);
    }
  }

  @Test
  void refusedConnectIsASessionFailure() throws Exception {
    InetSocketAddress nobody;
    try (ServerSocket listener = new ServerSocket(0, 50, LOOPBACK)) {
      nobody = (InetSocketAddress) listener.getLocalSocketAddress();
    }
    try (CallbackTesterClient client = CallbackTesterClient.overTcp(1)) {
      CallbackTesterClient.Result result =
          client.run(List.of(nobody), 2, 10, new ExchangeLatency(), 30, TimeUnit.SECONDS, 2);
      assertEquals(2, result.failed, result::toString);
      assertTrue(result.firstFailure.startsWith("connect failed"), result.firstFailure);
    }
  }

  interface Script {
    void talk(BufferedReader in, OutputStream out) throws Exception;
  }

  /** Accepts {@code connections} connections, one after another, each running {@code script}. */
  private static Thread serve(ServerSocket listener, int connections, Script script) {
    Thread thread = new Thread(() -> {
      for (int i = 0; i < connections; i++) {
        try (Socket socket = listener.accept()) {
          socket.setSoTimeout(10_000);
          script.talk(new BufferedReader(new InputStreamReader(socket.getInputStream(),
              StandardCharsets.US_ASCII)), socket.getOutputStream());
        } catch (Exception e) {
          // The client closing first is part of several scripts.
        }
      }
    }, "scripted-peer");
    thread.setDaemon(true);
    thread.start();
    return thread;
  }
}
