package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.spi.Suspend;
import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testing.LinesOnlyTransport;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.javaflow.api.continuable;
import org.apache.commons.javaflow.core.StackRecorder;
import org.junit.jupiter.api.Test;

/**
 * The trimming of captured stacks reads JavaFlow's private fields: they must be there in the
 * pinned version, or a simulation's waiting sessions silently keep twice their stack room. And a
 * trimmed stack must fit the next capture at the same wait, or every wait pays a regrowth and a
 * second trim.
 */
class CapturedStacksTest {
  private static final String CLIENT = "io.weft.continuations.testclient";

  @Test
  void javaFlowsStackFieldsAreFound() {
    assertTrue(CapturedStacks.enabled(), "JavaFlow's Stack fields (pstack, ostack, rstack, the tops) were not"
        + " found: the pinned version changed them");
  }

  @Test
  void aStackTrimmedAtAWaitIsNotCopiedAgainByTheNextWaitAtTheSamePlace() throws Exception {
    int lines = 5;
    ArrayDeque<Runnable> wakes = new ArrayDeque<>();
    ContinuationClassLoader loader = new ContinuationClassLoader(getClass().getClassLoader(), List.of(CLIENT));
    Scheduler scheduler = Scheduler.driven((wait, nanos) -> {});
    SessionTask<?> task = (SessionTask<?>) loader.loadClass(LineTesterTask.class.getName())
        .getConstructor(int.class).newInstance(lines);
    Fiber fiber = new Fiber(0, new WakeThenEchoConnector(wakes), InetSocketAddress.createUnresolved("echo", 7),
        Timeout.NONE, task, scheduler, false);
    Runnable frame = (Runnable) Class.forName(SessionFrame.class.getName(), true, loader)
        .getConstructor(SessionContext.class).newInstance(fiber);
    VarHandle continuation = MethodHandles.privateLookupIn(Fiber.class, MethodHandles.lookup())
        .findVarHandle(Fiber.class, "continuation", StackRecorder.class);
    List<Integer> copied = new ArrayList<>();
    scheduler.start(fiber, frame);
    scheduler.drive(() -> {
      for (Fiber f = scheduler.pollReady(); f != null; f = scheduler.pollReady()) {
        scheduler.runSlice(f);
        if (!f.isFinished()) {
          copied.add(CapturedStacks.trim((StackRecorder) continuation.get(f)));
          wakes.remove().run();
        }
      }
    });

    assertNull(fiber.failure(), () -> "the session failed: " + fiber.failure());
    assertEquals("0:" + lines + ":" + (lines * "session 0 line 0".length()), fiber.value());
    assertEquals(lines, copied.size(), "one wait per line");
    assertEquals(List.of(0, 0, 0, 0), copied.subList(1, lines),
        "arrays copied by the trim after each wait (the first trims what the start left)");
  }

  /** One transport whose every read suspends until the test runs its wake-up, then echoes the last line. */
  private static final class WakeThenEchoConnector implements Connector {
    private final ArrayDeque<Runnable> wakes;

    WakeThenEchoConnector(ArrayDeque<Runnable> wakes) {
      this.wakes = wakes;
    }

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) {
      return new WakeThenEcho();
    }

    @Override
    public void close() {}

    private final class WakeThenEcho extends LinesOnlyTransport {
      private String last;

      @Override
      @continuable
      public String readLine(int limit) throws IOException {
        Suspend.await(wakes::add, Deadlines.FOREVER);
        return last;
      }

      @Override
      @continuable
      public String readLineStrict(int limit) throws IOException {
        Suspend.await(wakes::add, Deadlines.FOREVER);
        return last;
      }

      @Override
      public void writeLine(String line) {
        last = line;
      }
    }
  }
}
