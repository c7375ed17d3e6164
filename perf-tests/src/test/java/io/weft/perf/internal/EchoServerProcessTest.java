package io.weft.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The echo server in a child JVM: the protocol over its stdin/stdout, end to end. */
class EchoServerProcessTest {
  @Test
  void childProcessServerEchoesCountsAndHolds() throws Exception {
    try (EchoServerProcess server = EchoServerProcess.start(2, 0, List.of("-Xmx64m"))) {
      assertEquals(2, server.addresses().size());
      try (Socket socket = new Socket()) {
        socket.connect(server.addresses().get(1), 5_000);
        socket.setSoTimeout(5_000);
        BufferedReader in = reader(socket);
        send(socket, "one\r\n");
        assertEquals("one", in.readLine());
        server.hold();
        send(socket, "two\r\n");
        // The child counts a line once its reply is queued: wait on that count.
        while (server.linesReceived() < 2) {
          Thread.onSpinWait();
        }
        assertEquals(0, socket.getInputStream().available(), "held: no reply yet");
        server.release();
        assertEquals("two", in.readLine());
      }
    }
  }

  private static BufferedReader reader(Socket socket) throws Exception {
    return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
  }

  private static void send(Socket socket, String text) throws Exception {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }
}
