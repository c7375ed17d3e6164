package io.weft.transport.mina;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.mina.core.filterchain.IoFilterAdapter;
import org.apache.mina.core.session.IoSession;
import org.junit.jupiter.api.Test;

/**
 * SYNC runs its sessions on the caller's thread and never threw for an interrupt: a task may
 * leave the flag set. Its wait for a close that MINA reports a processor turn late keeps that
 * promise: the run returns every result, and the caller's thread still has its flag.
 */
class SyncLateCloseInterruptTest {

  @Test
  void anInterruptLeftByATaskWhileItsCloseIsUnreportedNeitherEndsTheRunNorIsLost() throws Exception {
    try (MinaConnector connector = MinaConnector.builder().processorCount(1).tcp();
        ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
      SocketAddress address = server.getLocalSocketAddress();
      MinaTransport holder = connector.connect(address, Timeout.NONE);
      Socket holderPeer = server.accept();
      CountDownLatch processorHeld = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      holder.state().session().getFilterChain().addFirst("hold", new IoFilterAdapter() {
        @Override
        public void messageReceived(NextFilter next, IoSession session, Object message) throws Exception {
          processorHeld.countDown();
          release.await();
          next.messageReceived(session, message);
        }
      });
      try (SessionRunner runner = SessionRunner.builder().mode(Mode.SYNC).connector(connector)
          .allowBlockingConnector(true).address(address).connectPacing(ConnectPacing.NONE)
          .maxInFlight(1).timeout(Timeout.NONE).build()) {
        CompletableFuture<Thread> runThread = new CompletableFuture<>();
        CompletableFuture<Boolean> flagAfterRun = new CompletableFuture<>();
        CompletableFuture<RunResult<String>> run = CompletableFuture.supplyAsync(() -> {
          runThread.complete(Thread.currentThread());
          try {
            RunResult<String> result = runner.run(CloseAndInterruptTask.class, 1, processorHeld);
            flagAfterRun.complete(Thread.interrupted());
            return result;
          } catch (InterruptedException e) {
            throw new IllegalStateException("the SYNC run threw for an interrupt", e);
          }
        });
        Socket firstPeer = server.accept();
        // The processor takes this byte and stays in the filter: the session's close, made on
        // the run's thread, is closed by MINA, and reported, only once the test lets it go.
        holderPeer.getOutputStream().write("x\n".getBytes(UTF_8));
        Thread t = runThread.get(20, TimeUnit.SECONDS);
        // The run's thread now waits for that report with its flag set, or (before) threw.
        MinaTransportBehaviourTest.awaitUntil(() -> run.isDone() || waitsInTheRun(t));
        release.countDown();

        RunResult<String> result = run.get(60, TimeUnit.SECONDS);
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

  private static boolean waitsInTheRun(Thread t) {
    Object blocker = LockSupport.getBlocker(t);
    return blocker != null && blocker.getClass().getName().equals("io.weft.continuations.RunControl");
  }
}
