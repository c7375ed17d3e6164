package io.weft.continuations.heap;

import io.weft.continuations.Mode;
import io.weft.continuations.RunAbortedException;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.SessionTask;
import io.weft.transport.Transport;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A run sized to exhaust a small heap, for {@link RunOutOfHeapTest}'s child JVM: {@code SESSIONS}
 * sessions in THREADS mode each connect to a loopback server, wait for its "go" (sent once every
 * session is connected, so that the run's own bookkeeping is done before the heap fills), then
 * hold {@code HELD_BYTES} and wait for a line that never comes. Together they hold far more than
 * the heap; the sessions that find no room fail with an {@code OutOfMemoryError}, and the rest,
 * without Weft's abort, would wait for ever.
 *
 * <p>Prints the run's ending and exits as weft-load does: 0 if the run returned, 3 if it was
 * aborted (with the reason on standard error).
 */
public final class OutOfHeapRun {
  static final int SESSIONS = 600;
  static final int HELD_BYTES = 256 * 1024;

  private OutOfHeapRun() {}

  public static void main(String[] args) throws Exception {
    try (ServerSocket server = new ServerSocket(0, SESSIONS, InetAddress.getLoopbackAddress())) {
      Thread acceptor = new Thread(() -> serve(server), "go-server");
      acceptor.setDaemon(true);
      acceptor.start();
      try (SessionRunner runner = SessionRunner.builder().mode(Mode.THREADS)
          .address(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort())).build()) {
        RunResult<Integer> result = runner.run(HoldAndWait.class, SESSIONS);
        System.out.println("run returned: " + result.failures().size() + " of " + SESSIONS + " failed");
        System.exit(0);
      } catch (RunAbortedException e) {
        System.err.println(e.getMessage());
        System.out.println("run aborted: " + e.result().outcomes().size() + " outcomes");
        System.exit(3);
      }
    }
  }

  /** Accepts every session, then tells them all to go; holds the sockets open, never says more. */
  private static void serve(ServerSocket server) {
    List<Socket> sockets = new ArrayList<>(SESSIONS);
    try {
      while (sockets.size() < SESSIONS) {
        sockets.add(server.accept());
      }
      byte[] go = "go\r\n".getBytes(StandardCharsets.US_ASCII);
      for (Socket socket : sockets) {
        OutputStream out = socket.getOutputStream();
        out.write(go);
        out.flush();
      }
      Thread.currentThread().join();
    } catch (IOException | InterruptedException e) {
      // The run ended and the process with it.
    }
  }

  /** Waits for "go", then holds {@link #HELD_BYTES} while it waits for a line that never comes. */
  public static final class HoldAndWait implements SessionTask<Integer> {
    @Override
    public Integer run(Transport transport, int index) throws IOException {
      transport.readLineStrict(16);
      byte[] held = new byte[HELD_BYTES];
      held[index % HELD_BYTES] = 1;
      transport.readLineStrict(16);
      return held.length;
    }
  }
}
