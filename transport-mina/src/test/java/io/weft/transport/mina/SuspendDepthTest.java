package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.continuations.spi.SuspendingReads;
import io.weft.transport.Connector;
import io.weft.transport.Timeout;
import io.weft.transport.mina.outside.CapturedFrames;
import io.weft.transport.mina.testclient.HeldReadTask;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * How deep a read's suspend is over the real continuing transports: a session that waits in
 * {@code readLineStrict} over loopback TCP has captured, above its task's own frames, exactly the
 * transport's read method, the shared read loop ({@link SuspendingReads}) and {@code Suspend.await}
 * (a static frame, which leaves no reference): no checked wrapper in front of the transport, no
 * frame of the wait's own. Read from JavaFlow's captured reference stack (one {@code this} per
 * rewritten instance frame), by another session on the same I/O thread, after the capture.
 */
class SuspendDepthTest {
  private static final String CLIENT = "io.weft.transport.mina.testclient";

  @ParameterizedTest
  @EnumSource(value = SuspendingLoops.class, names = {"MINA", "NETTY"})
  void aReadThatSuspendsCapturesTheTransportsReadMethodTheLoopAndTheWaitOnly(SuspendingLoops loops) throws Exception {
    CapturedFrames.held = null;
    CapturedFrames.heldOn = null;
    CapturedFrames.seen = null;
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch released = new CountDownLatch(1);
    try (ServerSocket server = new ServerSocket(0, 2, InetAddress.getLoopbackAddress());
        Connector connector = loops.connectors.get()) {
      Thread acceptor = new Thread(() -> {
        for (int i = 0; i < 2; i++) {
          try {
            Socket s = server.accept();
            Thread t = new Thread(() -> serve(s, holding, released), "held-read-peer");
            t.setDaemon(true);
            t.start();
          } catch (IOException e) {
            return;
          }
        }
      }, "held-read-acceptor");
      acceptor.setDaemon(true);
      acceptor.start();
      RunResult<String> result;
      try (SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
          .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()))
          .timeout(Timeout.of(20, TimeUnit.SECONDS)).instrument(CLIENT).build()) {
        result = runner.run(HeldReadTask.class, 2);
      }
      assertTrue(result.allSucceeded(), () -> String.valueOf(result.failures()));
      List<String> seen = CapturedFrames.seen;
      String transport = connector.getClass().getPackageName().equals("io.weft.transport.netty")
          ? "io.weft.transport.netty.SuspendingNettyTransport" : SuspendingMinaTransport.class.getName();
      // Innermost first: the loop and the transport the task called, then only the task's own
      // references (its frames'), nothing in between: no checked wrapper, no waiter.
      assertTrue(seen != null && seen.contains(HeldReadTask.class.getName()), () -> "captured " + seen);
      int task = seen.indexOf(HeldReadTask.class.getName());
      assertEquals(List.of(SuspendingReads.class.getName(), transport), seen.subList(0, task), () -> "captured " + seen);
      for (String below : seen.subList(task, seen.size())) {
        assertEquals(HeldReadTask.class.getName(), below, () -> "captured " + seen);
      }
    }
  }

  /**
   * One session's side: echoes "first"; answers "hold" with "held" only once "release" came on
   * the other connection; answers "watch" with "go" once "hold" came; answers "release" with
   * "released".
   */
  private static void serve(Socket s, CountDownLatch holding, CountDownLatch released) {
    try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))) {
      OutputStream out = s.getOutputStream();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        String reply;
        switch (line) {
          case "first":
            reply = "first";
            break;
          case "hold":
            holding.countDown();
            if (!released.await(20, TimeUnit.SECONDS)) {
              return;
            }
            reply = "held";
            break;
          case "watch":
            if (!holding.await(20, TimeUnit.SECONDS)) {
              return;
            }
            reply = "go";
            break;
          case "release":
            released.countDown();
            reply = "released";
            break;
          default:
            return;
        }
        out.write((reply + "\r\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException e) {
      // the client closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
