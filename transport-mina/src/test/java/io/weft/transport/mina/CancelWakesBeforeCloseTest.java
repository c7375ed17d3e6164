package io.weft.transport.mina;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.weft.continuations.Mode;
import io.weft.continuations.Outcome;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.transport.Timeout;
import io.weft.transport.Transport;
import io.weft.transport.TransportClosedException;
import io.weft.transport.mina.internal.SessionState;
import io.weft.transport.mina.testclient.AwaitCancelTask;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;
import org.junit.jupiter.api.Test;

/**
 * Cancelling a CONTINUATIONS run wakes every suspended session before it closes any transport:
 * a close that is slow (in a full heap every allocation of MINA's close costs the JVM full
 * collections before it fails, a second or more per close) keeps no session from meeting its
 * cancel, unwinding its stack and giving back what it holds. Here the canceller's close of a
 * MINA session stays in a filter until the test lets it go, as a close stalled by a full heap
 * would; every session must meet the cancel meanwhile. Before, a fiber's cancel closed its
 * transport first and ended its wait after that, and the scheduler cancelled the fibers one
 * after the other: the first close held every session's wake-up, its own too (the library's
 * close comes before the state's wake-up). That is how RunOutOfHeapTest's MINA child kept its
 * heap full: 583 of 600 hog sessions were never cancelled in the 30 s after the abort, and the
 * run could not even gather its outcomes.
 *
 * <p>Then every session's transport is closed "by its owner", as when the canceller's close came
 * first: a read woken by the cancel passes the cancel on and closes nothing itself. The held close
 * need not engage: the woken sessions may close their own transports (in their frames, on the
 * worker) before the canceller's close reaches them, and MINA then skips the filter.
 */
class CancelWakesBeforeCloseTest {
  private static final int SESSIONS = 3;
  private static final String CLIENT = "io.weft.transport.mina.testclient";

  @Test
  // A watchdog only: the old code never lets the sessions meet their cancel while the close is held.
  @org.junit.jupiter.api.Timeout(value = 60, threadMode = org.junit.jupiter.api.Timeout.ThreadMode.SEPARATE_THREAD)
  void aCloseThatStallsOnTheCancellingThreadKeepsNoSessionFromItsCancel() throws Exception {
    List<Socket> peers = new CopyOnWriteArrayList<>();
    try (ServerSocket server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
         SuspendingMinaConnector connector = SuspendingMinaConnector.builder().processorCount(1).tcp();
         SessionRunner runner = SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
             .address(server.getLocalSocketAddress()).timeout(Timeout.NONE).instrument(CLIENT).build()) {
      Thread acceptor = new Thread(() -> {
        try {
          for (;;) {
            peers.add(server.accept());
          }
        } catch (IOException e) {
          // closed at the end of the test
        }
      }, "silent-server");
      acceptor.setDaemon(true);
      acceptor.start();

      CountDownLatch letGo = new CountDownLatch(1);
      Thread[] cancellerRef = new Thread[1];
      List<SessionState> states = new CopyOnWriteArrayList<>();
      connector.mina().service().getFilterChain().addFirst("stalling-close", new IoFilterAdapter() {
        @Override
        public void sessionOpened(NextFilter next, IoSession session) throws Exception {
          states.add((SessionState) session.getAttribute(SessionState.KEY));
          next.sessionOpened(session);
        }

        @Override
        public void filterClose(NextFilter next, IoSession session) throws Exception {
          if (Thread.currentThread() == cancellerRef[0]) {
            // The cancel's close, stalled as in a full heap, until the test lets it go.
            letGo.await(60, TimeUnit.SECONDS);
          }
          next.filterClose(session);
        }
      });

      CountDownLatch sawCancel = new CountDownLatch(SESSIONS);
      Transport[] kept = new Transport[SESSIONS];
      CompletableFuture<RunResult<String>> run = CompletableFuture.supplyAsync(() -> {
        try {
          return runner.run(AwaitCancelTask.class, SESSIONS, sawCancel, kept);
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      // Every session suspended in its read.
      MinaTransportBehaviourTest.awaitUntil(() -> states.size() == SESSIONS
          && states.stream().allMatch(SessionState::isReaderWaiting));

      Thread canceller = new Thread(runner::cancel, "canceller");
      cancellerRef[0] = canceller;
      canceller.start();
      try {
        // Every session meets its cancel while the cancel's own close may be held.
        sawCancel.await();
      } finally {
        letGo.countDown();
      }
      canceller.join();
      RunResult<String> result = run.get();
      for (int i = 0; i < SESSIONS; i++) {
        Outcome<String> outcome = result.outcome(i);
        assertEquals(Outcome.Status.CANCELLED, outcome.status(), i + ": " + outcome);
        // The cancel is no failure of the transport: its read passes it on without closing the
        // transport, and the session's close or the canceller's closes it, as before the wake pass.
        // (Through the failure policy, the read closed it itself, before the stack unwound, as
        // "failed: ...SessionCancelledException".) The first session's close may be the held one.
        assertFalse(kept[i].isOpen(), i + ": " + kept[i]);
        Transport transport = kept[i];
        TransportClosedException closed = assertThrows(TransportClosedException.class, transport::flush);
        assertEquals("transport is closed: closed by its owner", closed.getMessage(), i + ": " + outcome);
      }
      assertEquals(0, connector.mina().openCount());
    } finally {
      for (Socket peer : peers) {
        peer.close();
      }
    }
  }
}
