package io.weft.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM does not outlive the wait for it: when the waiting thread is interrupted (as JUnit's
 * timeout interrupts a test) before the child's own limit, the child is killed. The child tells its
 * pid over a loopback socket and then waits on that socket; its end of the socket closing is how the
 * test sees it die.
 */
class ChildJvmTest {
  @TempDir
  Path dir;

  /** The child: connects to the port {@code args[0]}, writes its pid and waits for a byte that never comes. */
  public static final class Waiter {
    private Waiter() {}

    public static void main(String[] args) throws Exception {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(args[0]))) {
        OutputStream out = s.getOutputStream();
        out.write((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
        s.getInputStream().read();
      }
    }
  }

  @Test
  void aChildWhoseWaitIsInterruptedIsKilled() throws Exception {
    long pid = -1;
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      // Safety nets for a child that never connects or never dies, not measures of time.
      server.setSoTimeout(120_000);
      AtomicReference<Throwable> thrown = new AtomicReference<>();
      Thread waiter = new Thread(() -> {
        try {
          ChildJvm.run(dir, Duration.ofMinutes(4), List.of(), Waiter.class.getName(),
              Integer.toString(server.getLocalPort()));
        } catch (Throwable t) {
          thrown.set(t);
        }
      }, "child-waiter");
      waiter.start();
      try (Socket child = server.accept()) {
        child.setSoTimeout(120_000);
        BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
        pid = Long.parseLong(in.readLine());
        waiter.interrupt();
        waiter.join();
        assertInstanceOf(InterruptedException.class, thrown.get());
        // The child's end closes when it dies; an alive child would leave this read waiting.
        assertEquals(-1, in.read(), "the child JVM " + pid + " is still running");
      }
    } finally {
      if (pid > 0) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }
}
