package io.weft.perf.tester;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.perf.internal.DelayingEchoServer;
import io.weft.perf.internal.ExchangeLatency;
import io.weft.transport.ProtocolViolationException;
import io.weft.transport.SocketTransport;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

@org.junit.jupiter.api.Timeout(30)
class TesterSessionTest {
  private static final Timeout FIVE_SECONDS = Timeout.of(5, TimeUnit.SECONDS);

  @Test
  void doesEveryExchangeAndRecordsEachLatency() throws Exception {
    ExchangeLatency latency = new ExchangeLatency();
    try (DelayingEchoServer server = DelayingEchoServer.tcp(
            List.of(InetAddress.getLoopbackAddress()), 0, TimeUnit.MILLISECONDS);
        Transport transport = SocketTransport.connect(server.addresses().get(0), FIVE_SECONDS)) {
      assertEquals(10, new TesterSession(10, latency).run(transport, 7));
      assertEquals(10, server.linesReceived());
    }
    assertEquals(10, latency.intervalHistogram().getTotalCount());
  }

  @Test
  void wrongEchoIsAProtocolViolationQuotingTheReply() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 5, InetAddress.getLoopbackAddress())) {
      Thread peer = new Thread(() -> {
        try (Socket socket = listener.accept()) {
          BufferedReader in = new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
          in.readLine();
          OutputStream out = socket.getOutputStream();
          out.write("weft 3 9\r\n".getBytes(StandardCharsets.US_ASCII));
          out.flush();
          in.readLine();
        } catch (Exception e) {
          // The client hangs up after the bad reply.
        }
      });
      peer.start();
      try (Transport transport = SocketTransport.connect(listener.getLocalSocketAddress(), FIVE_SECONDS)) {
        ProtocolViolationException e = assertThrows(ProtocolViolationException.class,
            () -> new TesterSession(10, start -> { }).run(transport, 3));
        assertTrue(e.getMessage().contains("expected \"weft 3 0\" but got \"weft 3 9\""),
            e.getMessage());
      }
      peer.join(10_000);
    }
  }
}
