package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.testsupport.EchoServer;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.socket.SocketConnector;
import java.io.IOException;
import java.nio.channels.spi.AbstractInterruptibleChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Review-heap7-s18 item 1: the cancel pass of an aborted THREADS or VIRTUAL_THREADS run does not
 * interrupt a session thread while holding the monitor every session thread's end takes. An
 * interrupt can be held up for long: on JDK 25, in a full heap, a virtual thread's interrupt is
 * an unpark whose submit retries until there is room, and the heap had none because the session
 * threads, which would free it, waited for that monitor (child D-6: a deadlock until the close
 * wait). Here the interrupt is held up without a full heap, deterministically: session 0's thread
 * waits inside an interruptible channel's {@code begin()}, whose interrupt closes the channel on
 * the interrupting thread; that close waits (a 60-s watchdog) for session 1's thread to end, and
 * session 1 ends only once that close has begun. Before, session 1's end waited for the monitor
 * the pass held for the whole interrupt, and the close gave up after its 60 s.
 */
class CancelInterruptTest {
  static List<Mode> modes() {
    List<Mode> modes = new ArrayList<>(List.of(Mode.THREADS));
    if (Runtime.version().feature() >= 21) {
      modes.add(Mode.VIRTUAL_THREADS);
    }
    return modes;
  }

  @ParameterizedTest
  @MethodSource("modes")
  // A watchdog only (on the old code the run returns after the close's 60-s wait).
  @org.junit.jupiter.api.Timeout(value = 150, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aSessionThreadEndsWhileTheCancelPassIsHeldUpInAnotherThreadsInterrupt(Mode mode) throws Exception {
    HeldInterrupt.reset();
    try (EchoServer tcp = EchoServer.tcp(); SocketConnector connector = new SocketConnector();
         SessionRunner runner = SessionRunner.builder().mode(mode).connector(connector).address(tcp.address())
             .timeout(Timeout.of(120, TimeUnit.SECONDS)).closeWait(120, TimeUnit.SECONDS).maxInFlight(3).build()) {
      RunAbortedException e = assertThrows(RunAbortedException.class, () -> runner.run(HeldInterrupt.class, 3));
      assertTrue(e.getMessage().startsWith("the run was aborted: the heap ran out"), e.getMessage());
      assertEquals(1, HeldInterrupt.closes, "closes of session 0's channel by an interrupt");
      assertEquals(Boolean.TRUE, HeldInterrupt.secondEndedInTheInterrupt,
          "session 1's thread did not end while session 0's interrupt was held up (60-s watchdog)");
    }
  }

  /**
   * Session 0 waits inside {@link Held#begin()} until its interrupt has begun to close the channel;
   * session 1 waits until session 0's interrupt has begun, then ends; session 2, once both wait, meets the heap's end (a thrown
   * {@code OutOfMemoryError}), which aborts the run.
   */
  public static final class HeldInterrupt implements SessionTask<String> {
    static volatile CountDownLatch waiting;
    static volatile CountDownLatch interruptBegun;
    static volatile Thread second;
    static volatile Boolean secondEndedInTheInterrupt;
    static volatile int closes;

    static void reset() {
      waiting = new CountDownLatch(2);
      interruptBegun = new CountDownLatch(1);
      second = null;
      secondEndedInTheInterrupt = null;
      closes = 0;
    }

    @Override
    public String run(Transport transport, int index) throws IOException {
      try {
        if (index == 0) {
          Held held = new Held();
          held.await();
          return "not interrupted";
        }
        if (index == 1) {
          second = Thread.currentThread();
          waiting.countDown();
          // A watchdog only: the interrupt of session 0 counts it down.
          assertTrue(interruptBegun.await(120, TimeUnit.SECONDS), "session 0's interrupt never began");
          return "ended";
        }
        // A watchdog only.
        assertTrue(waiting.await(120, TimeUnit.SECONDS), "sessions 0 and 1 never waited");
      } catch (InterruptedException e) {
        throw new IOException(e);
      }
      throw new OutOfMemoryError("Java heap space");
    }
  }

  /**
   * A channel whose close, made by an interrupt of the thread in {@link #await}, is held up. The
   * thread in {@link #await} stays in it until that close has begun, whatever its interrupt status
   * says: on JDK 25 {@code Thread.interrupt()} sets a platform thread's status before it reads the
   * thread's channel (its {@code nioBlocker}), and a thread that left on the status alone (its
   * {@code end()} clearing the channel first) was interrupted with no close: the pass went on to
   * session 1, and the run ended with none.
   */
  static final class Held extends AbstractInterruptibleChannel {
    void await() throws IOException, InterruptedException {
      boolean done = false;
      boolean interrupted = false;
      begin();
      try {
        HeldInterrupt.waiting.countDown();
        // Until the interrupt's close has begun (a watchdog only): the cancel pass's interrupt
        // closes this channel, which ends it.
        for (;;) {
          try {
            HeldInterrupt.interruptBegun.await(120, TimeUnit.SECONDS);
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        done = !interrupted;
      } finally {
        // Closed by the interrupt: throws ClosedByInterruptException.
        end(done);
      }
    }

    @Override
    protected void implCloseChannel() {
      // On the interrupting thread, inside its interrupt of session 0's thread.
      HeldInterrupt.closes++;
      HeldInterrupt.interruptBegun.countDown();
      Thread second = HeldInterrupt.second;
      try {
        second.join(60_000L);
        HeldInterrupt.secondEndedInTheInterrupt = !second.isAlive();
      } catch (InterruptedException e) {
        HeldInterrupt.secondEndedInTheInterrupt = false;
        Thread.currentThread().interrupt();
      }
    }
  }
}
