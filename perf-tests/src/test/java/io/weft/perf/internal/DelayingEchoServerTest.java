package io.weft.perf.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.mina.transport.vmpipe.VmPipeAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class DelayingEchoServerTest {
  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

  @Test
  void echoesEveryLineBackAfterAtLeastTheDelay() throws Exception {
    try (DelayingEchoServer server = DelayingEchoServer.tcp(List.of(LOOPBACK), 20, TimeUnit.MILLISECONDS);
        Socket socket = connect(server)) {
      BufferedReader in = reader(socket);
      for (int i = 0; i < 3; i++) {
        long start = System.nanoTime();
        send(socket, "line " + i + "\r\n");
        assertEquals("line " + i, in.readLine());
        // Semantics, not speed: a delayed reply never comes early.
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20));
      }
      assertEquals(3, server.linesReceived());
    }
  }

  @Test
  void heldRepliesComeOnlyAfterRelease() throws Exception {
    try (DelayingEchoServer server = DelayingEchoServer.tcp(List.of(LOOPBACK), 0, TimeUnit.MILLISECONDS);
        Socket socket = connect(server)) {
      server.hold();
      send(socket, "first\r\n");
      for (int i = 0; i < 1000 && server.linesReceived() < 1; i++) {
        Thread.sleep(5);
      }
      assertEquals(1, server.linesReceived());
      Thread.sleep(50);
      assertEquals(0, socket.getInputStream().available(), "a reply got through while held");
      server.release();
      assertEquals("first", reader(socket).readLine());
    }
  }

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
        for (int i = 0; i < 1000 && server.linesReceived() < 2; i++) {
          Thread.sleep(5);
        }
        assertEquals(2, server.linesReceived());
        server.release();
        assertEquals("two", in.readLine());
      }
    }
  }

  @Test
  void pipeServerBindsAFreePipePort() throws Exception {
    try (DelayingEchoServer one = DelayingEchoServer.pipe(0, TimeUnit.MILLISECONDS);
        DelayingEchoServer two = DelayingEchoServer.pipe(0, TimeUnit.MILLISECONDS)) {
      VmPipeAddress a = (VmPipeAddress) one.addresses().get(0);
      VmPipeAddress b = (VmPipeAddress) two.addresses().get(0);
      assertNotEquals(0, a.getPort());
      assertNotEquals(a, b);
    }
  }

  private static Socket connect(DelayingEchoServer server) throws Exception {
    Socket socket = new Socket();
    socket.connect(server.addresses().get(0), 5_000);
    socket.setSoTimeout(5_000);
    return socket;
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
