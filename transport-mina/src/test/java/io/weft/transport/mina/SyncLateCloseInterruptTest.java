package io.weft.transport.mina;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.weft.continuations.ConnectPacing;
import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.mina.testclient.CloseAndInterruptTask;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;
import org.junit.jupiter.api.Test;

/**
 * SYNC runs its sessions on the caller's thread and never threw for an interrupt: a task may
 * leave the flag set. Its wait for a close that MINA reports a processor turn late keeps that
 * promise: the run returns every result, and the caller's thread still has its flag.
 *
 * <p>The order the test needs, each step an event it waits for with a bound: the session's task
 * has started (MINA completes a connect in a processor turn, so the processor must not be held
 * before that); the one processor is then held inside another session's filter; the task closes
 * its transport (MINA closes the socket, and reports it, only in the processor's next turn) and
 * returns with its flag set; the run's thread waits for that report (or, before the fix, threw);
 * only then is the processor let go.
 */
class SyncLateCloseInterruptTest {
  /** The bound of every wait here: a wrong outcome fails in this time, never hangs. */
  private static final long WAIT_SECONDS = 60;

  @Test
  void anInterruptLeftByATaskWhileItsCloseIsUnreportedNeitherEndsTheRunNorIsLost() throws Exception {
    try (MinaConnector connector = MinaConnector.builder().processorCount(1).tcp();
        ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      server.setSoTimeout((int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
      SocketAddress address = server.getLocalSocketAddress();
      MinaTransport holder = connector.connect(address, Timeout.NONE);
      Socket holderPeer = server.accept();
      CountDownLatch processorHeld = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      holder.state().session().getFilterChain().addFirst("hold", new IoFilterAdapter() {
        @Override
        public void messageReceived(NextFilter next, IoSession session, Object message) throws Exception {
          processorHeld.countDown();
          release.await(WAIT_SECONDS, TimeUnit.SECONDS);
          next.messageReceived(session, message);
        }
      });
      // Long enough that the report, not this bound, ends the run's wait in any order of events.
      try (SessionRunner runner = SessionRunner.builder().mode(Mode.SYNC).connector(connector)
          .allowBlockingConnector(true).address(address).connectPacing(ConnectPacing.NONE)
          .maxInFlight(1).timeout(Timeout.NONE).closeWait(WAIT_SECONDS, TimeUnit.SECONDS).build()) {
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean flagAfterRun = new AtomicBoolean();
        // Its own thread, not a shared pool's, which another test may have left busy.
        FutureTask<RunResult<String>> run = new FutureTask<>(() -> {
          RunResult<String> result = runner.run(CloseAndInterruptTask.class, 1, started, processorHeld);
          flagAfterRun.set(Thread.interrupted());
          return result;
        });
        Thread runThread = new Thread(run, "sync-late-close-run");
        runThread.setDaemon(true);
        runThread.start();
        Socket firstPeer = server.accept();
        try {
          assertTrue(started.await(WAIT_SECONDS, TimeUnit.SECONDS),
              () -> "the session's task did not start; the run's thread: " + stackOf(runThread));
          // The processor takes this byte and stays in the filter: the session's close, made on
          // the run's thread, is closed by MINA, and reported, only once the test lets it go.
          holderPeer.getOutputStream().write("x\n".getBytes(UTF_8));
          assertTrue(processorHeld.await(WAIT_SECONDS, TimeUnit.SECONDS), "the processor took the byte");
          awaitWaitingForTheReportOrDone(runThread, run);
        } finally {
          release.countDown();
        }

        RunResult<String> result;
        try {
          result = run.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
          throw new AssertionError("the run did not return; its thread: " + stackOf(runThread), e);
        } catch (ExecutionException e) {
          throw new AssertionError("the SYNC run threw", e.getCause());
        }
        assertEquals(1, result.outcomes().size());
        for (Outcome<String> o : result.outcomes()) {
          assertEquals(Outcome.Status.SUCCEEDED, o.status(), () -> "session " + o.index() + ": " + o.failure());
        }
        assertTrue(flagAfterRun.get(), "the caller's thread keeps its interrupt status");
        firstPeer.close();
      }
      holderPeer.close();
    }
  }

  /**
   * Waits until the run's thread is parked in the runner's wait for a session (the only thing
   * it can wait for now: its task has ended, and its connection's close cannot be reported while
   * the processor is held), or the run has ended (it threw, before the fix). A bounded look at
   * the thread's state, a millisecond apart; fails at the bound with where the thread is.
   */
  private static void awaitWaitingForTheReportOrDone(Thread t, FutureTask<?> run) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!run.isDone() && !waitsInTheRun(t)) {
      if (System.nanoTime() - deadline > 0) {
        fail("the run's thread neither waited for the close report nor ended in " + WAIT_SECONDS
            + " s; it is " + t.getState() + " at " + stackOf(t));
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  private static boolean waitsInTheRun(Thread t) {
    Object blocker = LockSupport.getBlocker(t);
    return blocker != null && blocker.getClass().getName().equals("io.weft.continuations.RunControl");
  }

  private static String stackOf(Thread t) {
    return Arrays.toString(t.getStackTrace());
  }
}
