package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.testing.EchoEveryReadSuspendsConnector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.lang.ref.WeakReference;
import java.net.InetSocketAddress;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Under {@code alreadyRewritten()} the task's classes, and so the resume-time check's call sites in
 * them, belong to a loader that outlives the runner, while the transport they call is the runner's
 * own rewritten {@code CheckedTransport}, defined by a loader of that runner. Those call sites see
 * that class at every resume; they must not keep the runner's loader (and every class it defined)
 * alive once the runner is closed and dropped.
 */
class RunnerLoaderReleaseTest {
  private static final int SESSIONS = 50;
  private static final int COLLECTIONS = 50;

  @Test
  void aRunnersLoaderIsCollectedAfterTheRunnerThoughCallSitesThatOutliveItSawItsTransportClass()
      throws Exception {
    Path rewritten = Paths.get(System.getProperty("weft.rewrittenTestClasses"));
    assertTrue(Files.isDirectory(rewritten), "the build's rewritten test clients: " + rewritten);
    try (URLClassLoader clients = BuildTimeRewriteTest.rewrittenClients(rewritten)) {
      @SuppressWarnings("unchecked")
      Class<? extends SessionTask<ClassLoader>> task = (Class<? extends SessionTask<ClassLoader>>)
          Class.forName(SessionRunnerTest.CLIENT + ".TransportLoaderTask", false, clients);
      WeakReference<ClassLoader> runnersLoader = runAndDrop(task);
      for (int i = 0; i < COLLECTIONS && runnersLoader.get() != null; i++) {
        System.gc();
      }
      assertNull(runnersLoader.get(), "the closed runner's loader " + runnersLoader.get() + " is still reachable after "
          + COLLECTIONS + " full collections, while the task's loader (with the call sites that resumed into its"
          + " transport class) is alive");
      // The task's classes, and their call sites, really are still there.
      assertEquals(clients, task.getClassLoader());
    }
  }

  /** Runs sessions that suspend and resume through the runner's transport; returns its loader, weakly. */
  private static WeakReference<ClassLoader> runAndDrop(Class<? extends SessionTask<ClassLoader>> task)
      throws Exception {
    try (EchoEveryReadSuspendsConnector connector = new EchoEveryReadSuspendsConnector()) {
      ClassLoader loader;
      try (SessionRunner runner = SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(Mode.continuations(1))
          .connector(connector).address(InetSocketAddress.createUnresolved("loader-release", 1))
          .timeout(Timeout.of(30, TimeUnit.SECONDS)).alreadyRewritten().build()) {
        RunResult<ClassLoader> result = runner.run(task, SESSIONS);
        assertTrue(result.allSucceeded(), result.failures().stream().limit(3).toList().toString());
        loader = result.outcome(0).value();
        for (int i = 1; i < SESSIONS; i++) {
          assertEquals(loader, result.outcome(i).value(), "session " + i);
        }
      }
      assertTrue(connector.waits() >= SESSIONS, "every session suspended and resumed: " + connector.waits());
      assertEquals(0, connector.openTransports());
      assertNotSame(RunnerLoaderReleaseTest.class.getClassLoader(), loader,
          "the transport handed to the task is the runner's own rewritten one");
      return new WeakReference<>(loader);
    }
  }
}
