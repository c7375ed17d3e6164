package io.weft.continuations.internal.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.weft.continuations.ContinuationClassLoader;
import io.weft.continuations.runtime.spi.ReleasingRegistration;
import io.weft.continuations.spi.Suspend;
import io.weft.continuations.spi.WaitRegistration;
import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testing.LinesOnlyTransport;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.spi.Deadlines;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.commons.javaflow.api.continuable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A driven scheduler's session hands its waits on a {@link ReleasingRegistration} one wake-up
 * object, armed again for each wait: one for its timed waits and another for its waits without a
 * timeout, so that the timer never sees an object that a wait without a timeout takes over (it
 * would time that wait out at the earlier wait's deadline). A registration that may keep its
 * wake-up gets a new object every time, as under any other scheduler. Either way every timed wait
 * is armed with the timer and the session runs to its end.
 */
class ReusedWaitsTest {
  private static final String CLIENT = "io.weft.continuations.testclient";
  private static final int LINES = 5;

  @ParameterizedTest(name = "releasing={0}, timeouts {1}: {2} wake-up objects")
  @CsvSource({"true, timed, 1", "true, forever, 1", "true, alternating, 2",
      "false, timed, 5", "false, forever, 5", "false, alternating, 5"})
  void wakeUpObjectsForFiveWaits(boolean releasing, String timeouts, int objects) throws Exception {
    long[] timeoutNanos = new long[LINES];
    for (int i = 0; i < LINES; i++) {
      boolean timed = timeouts.equals("timed") || (timeouts.equals("alternating") && i % 2 == 0);
      timeoutNanos[i] = timed ? TimeUnit.SECONDS.toNanos(30) : Deadlines.FOREVER;
    }
    List<Runnable> registered = new ArrayList<>();
    List<Object> armed = new ArrayList<>();
    Scheduler scheduler = Scheduler.driven((wait, nanos) -> armed.add(wait));
    ContinuationClassLoader loader = new ContinuationClassLoader(getClass().getClassLoader(), List.of(CLIENT));
    SessionTask<?> task = (SessionTask<?>) loader.loadClass(LineTesterTask.class.getName())
        .getConstructor(int.class).newInstance(LINES);
    Fiber fiber = new Fiber(0, new WaitingEcho(registered, releasing, timeoutNanos),
        InetSocketAddress.createUnresolved("echo", 7), Timeout.NONE, task, scheduler, false);
    Runnable frame = (Runnable) Class.forName(SessionFrame.class.getName(), true, loader)
        .getConstructor(SessionContext.class).newInstance(fiber);
    scheduler.start(fiber, frame);
    scheduler.drive(() -> {
      for (Fiber f = scheduler.pollReady(); f != null; f = scheduler.pollReady()) {
        scheduler.runSlice(f);
        if (!f.isFinished()) {
          registered.get(registered.size() - 1).run();
        }
      }
    });

    assertNull(fiber.failure(), () -> "the session failed: " + fiber.failure());
    assertEquals("0:" + LINES + ":" + (LINES * "session 0 line 0".length()), fiber.value());
    assertEquals(LINES, registered.size(), "one registration per line read");
    Set<Runnable> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
    distinct.addAll(registered);
    assertEquals(objects, distinct.size(), "distinct wake-up objects among the registrations");
    List<Runnable> timed = new ArrayList<>();
    Set<Runnable> untimed = Collections.newSetFromMap(new IdentityHashMap<>());
    for (int i = 0; i < LINES; i++) {
      if (timeoutNanos[i] != Deadlines.FOREVER) {
        timed.add(registered.get(i));
      } else {
        untimed.add(registered.get(i));
      }
    }
    assertEquals(timed, armed, "the timed waits, armed with the timer in order");
    for (Object wait : armed) {
      assertFalse(untimed.contains(wait), "a wait without a timeout took over an object the timer has seen");
    }
  }

  /** A transport whose every read waits once through its registration, then echoes the last line written. */
  private static final class WaitingEcho implements Connector {
    private final List<Runnable> registered;
    private final boolean releasing;
    private final long[] timeoutNanos;

    WaitingEcho(List<Runnable> registered, boolean releasing, long[] timeoutNanos) {
      this.registered = registered;
      this.releasing = releasing;
      this.timeoutNanos = timeoutNanos;
    }

    @Override
    public Transport connect(SocketAddress remote, Timeout timeout) {
      return new Echo();
    }

    @Override
    public void close() {}

    private final class Echo extends LinesOnlyTransport {
      private String last;

      @continuable
      private String awaitLine() throws IOException {
        // The test runs each wake-up once, and a releasing registration holds nothing after it.
        WaitRegistration registration = releasing
            ? (ReleasingRegistration) registered::add : (WaitRegistration) registered::add;
        Suspend.await(registration, timeoutNanos[registered.size()]);
        return last;
      }

      @Override
      @continuable
      public String readLine(int limit) throws IOException {
        return awaitLine();
      }

      @Override
      @continuable
      public String readLineStrict(int limit) throws IOException {
        return awaitLine();
      }

      @Override
      public void writeLine(String line) {
        last = line;
      }

    }
  }
}
