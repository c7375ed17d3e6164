package io.weft.continuations;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.weft.continuations.internal.rewrite.Rewritten;
import io.weft.continuations.internal.runtime.Guard;
import io.weft.continuations.testclient.LineTesterTask;
import io.weft.continuations.testing.PipeConnector;
import io.weft.continuations.testing.PipeEchoServer;
import io.weft.testsupport.ChildJvm;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The build-time rewrite: the Rewrite tool rewrites the plain test clients into a directory, a
 * plain URLClassLoader loads them from there, and the runner runs them with
 * {@code alreadyRewritten()}, no ContinuationClassLoader. The sessions must really suspend, and
 * what was not rewritten must be refused or caught, naming the class.
 */
class BuildTimeRewriteTest {
  private static final String CLIENT = SessionRunnerTest.CLIENT;
  private static final Path TEST_CLASSES = ChildJvm.codeSource(LineTesterTask.class);

  @TempDir
  Path temp;

  private final PipeEchoServer server = new PipeEchoServer(1, TimeUnit.MILLISECONDS);
  private final PipeConnector pipes = new PipeConnector();

  @AfterEach
  void stop() {
    pipes.close();
    server.close();
  }

  @Test
  void rewrittenClientsRunManySuspendingSessionsOnOneWorkerFromAPlainClassLoader() throws Exception {
    Path out = temp.resolve("rewritten");
    RewriteRun tool = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", CLIENT, "--output", out.toString(),
        "--allow-problems");
    assertEquals(0, tool.code(), tool.err());
    assertTrue(tool.out().contains("rewrote io.weft.continuations.testclient.LineTesterTask: run"), tool.out());
    assertTrue(tool.out().contains("rewrote io.weft.continuations.testclient.EchoExchange: call"), tool.out());
    try (URLClassLoader loader = rewrittenClients(out)) {
      Class<? extends SessionTask<String>> task = taskClass(loader, "LineTesterTask");
      assertTrue(task.isAnnotationPresent(Rewritten.class));
      int sessions = 2000;
      try (SessionRunner runner = runner(server).build()) {
        assertNull(runner.classLoader());
        RunResult<String> result = runner.run(task, sessions, 3);
        assertTrue(result.allSucceeded(), result.failures().stream().limit(3).toList().toString());
        for (int i = 0; i < sessions; i++) {
          assertEquals(i + ":3:" + 3 * ("session " + i + " line 0").length(), result.outcome(i).value());
        }
      }
      // One worker, and sessions overlapped: only suspended continuations can do that.
      assertTrue(pipes.suspends() >= sessions, "suspends " + pipes.suspends());
      assertTrue(pipes.peakOpenTransports() > 100, "peak open " + pipes.peakOpenTransports());
      assertEquals(0, pipes.openTransports());
    }
  }

  @Test
  void debugFramesFindEveryFrameRewrittenAhead() throws Exception {
    Path out = rewriteAll();
    try (URLClassLoader loader = rewrittenClients(out);
         SessionRunner runner = runner(server).debugFrames(true).build()) {
      RunResult<String> result = runner.run(taskClass(loader, "LineTesterTask"), 20, 3);
      assertTrue(result.allSucceeded(), result.failures().toString());
      assertTrue(pipes.suspends() > 0);
    }
  }

  @Test
  void aTaskClassThatWasNotRewrittenIsRefusedNamingItAndTheFix() throws Exception {
    try (SessionRunner runner = runner(server).build()) {
      NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
          () -> runner.run(LineTesterTask.class, 3, 1));
      String m = e.getMessage();
      assertTrue(m.startsWith("io.weft.continuations.testclient.LineTesterTask was not rewritten"), m);
      assertTrue(m.contains("io.weft.continuations.tools.Rewrite --classes"), m);
      assertTrue(m.contains("-javaagent:<continuations jar>=io.weft.continuations.testclient"), m);
      assertTrue(m.contains("instrument(\"io.weft.continuations.testclient\")"), m);
      assertEquals("io.weft.continuations.testclient.LineTesterTask", e.problems().get(0).className());
      assertEquals(0, pipes.peakOpenTransports(), "no session may start");
    }
  }

  @Test
  void aTaskReachingAPackageOutsideTheRewrittenOnesIsRefusedBeforeAnySessionNamingThePackage() throws Exception {
    Path out = rewriteAll();
    try (URLClassLoader loader = rewrittenClients(out); SessionRunner runner = runner(server).build()) {
      NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
          () -> runner.run(taskClass(loader, "OutsideHelperTask"), 4));
      assertTrue(e.getMessage().contains(RefusedShapesTest.OUTSIDE_TWO_DEEP), e.getMessage());
      assertTrue(e.getMessage().contains("Add package io.weft.continuations.testoutside to instrument(...)"),
          e.getMessage());
      assertEquals(0, pipes.peakOpenTransports(), "no session may start");
    }
  }

  @Test
  void theToolRefusesWhatTheLoaderRefusesAndWritesNothing() throws Exception {
    Path out = temp.resolve("refused");
    RewriteRun tool = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", CLIENT, "--output", out.toString());
    assertEquals(1, tool.code(), tool.out() + tool.err());
    assertTrue(tool.err().contains("io.weft.continuations.testclient.LambdaTask.run(Lio/weft/transport/Transport;I)"
        + "Ljava/lang/String;: creates a lambda"), tool.err());
    assertTrue(tool.err().contains("it is handed to java.util.List.sort"), tool.err());
    assertTrue(tool.err().contains("io.weft.continuations.testclient.TransportInputStream.read([BII)I: can suspend, but it"
        + " overrides java.io.InputStream.read"), tool.err());
    assertTrue(tool.err().contains("refused, nothing written"), tool.err());
    assertFalse(Files.exists(out), "nothing may be written");
  }

  @Test
  void aTaskThatReachesAProblemIsRefusedBeforeAnySessionLikeTheLoaderRefusesIt() throws Exception {
    Path out = rewriteAll();
    try (URLClassLoader loader = rewrittenClients(out); SessionRunner runner = runner(server).build()) {
      NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
          () -> runner.run(taskClass(loader, "LambdaTask"), 1));
      assertEquals("io.weft.continuations.testclient.LambdaTask", e.problems().get(0).className());
      assertTrue(e.problems().get(0).message().contains("it is handed to java.util.List.sort"), e.getMessage());
      NotInstrumentableException reader = assertThrows(NotInstrumentableException.class,
          () -> runner.run(taskClass(loader, "ReaderTask"), 1));
      assertTrue(reader.getMessage().contains("overrides java.io.InputStream.read"), reader.getMessage());
      assertEquals(0, pipes.peakOpenTransports(), "no session may start");
    }
  }

  @Test
  void aClassRewrittenWithCaptureChecksIsRefusedWhereTheRuntimeCannotReadJavaFlowsStackNamingTheFix()
      throws Exception {
    Path out = rewriteAll();
    try (URLClassLoader loader = rewrittenClients(out)) {
      Class<?> task = taskClass(loader, "LineTesterTask");
      Rewritten marker = task.getAnnotation(Rewritten.class);
      // The class path opens JavaFlow's packages: this JVM rewrites with the checks at the capture.
      assertTrue(Guard.CHECKS_AT_CAPTURE);
      assertTrue(marker.captureChecks(), "the mark must say how the class was rewritten");
      ContinuationRunner.refuseCaptureChecks(task.getName(), marker, true);
      // As on the module path without --add-opens: refused before any session, naming both fixes.
      NotInstrumentableException e = assertThrows(NotInstrumentableException.class,
          () -> ContinuationRunner.refuseCaptureChecks(task.getName(), marker, false));
      assertTrue(e.getMessage().startsWith("io.weft.continuations.testclient.LineTesterTask was rewritten to check"),
          e.getMessage());
      assertTrue(e.getMessage().contains(
          "--add-opens net.tascalate.javaflow.api/org.apache.commons.javaflow.core=ALL-UNNAMED"), e.getMessage());
      assertTrue(e.getMessage().contains("rewrite the classes on this runtime"), e.getMessage());
      assertEquals(task.getName(), e.problems().get(0).className());
    }
  }

  @Test
  void rewritingTwiceIsHarmless() throws Exception {
    Path out = rewriteAll();
    Path file = out.resolve("io/weft/continuations/testclient/LineTesterTask.class");
    byte[] once = Files.readAllBytes(file);
    RewriteRun again = RewriteRun.of("--classes", out.toString(), "--packages", CLIENT, "--allow-problems");
    assertEquals(0, again.code(), again.err());
    // However many test-client classes there are: none rewritten again, all already rewritten.
    assertTrue(again.out().matches("(?s).*0 classes rewritten, [1-9][0-9]* already rewritten.*"), again.out());
    assertArrayEquals(once, Files.readAllBytes(file));
    try (URLClassLoader loader = rewrittenClients(out); SessionRunner runner = runner(server).build()) {
      assertTrue(runner.run(taskClass(loader, "LineTesterTask"), 50, 2).allSucceeded());
    }
  }

  @Test
  void theToolSaysWhatIsWrongWithItsArguments() throws Exception {
    RewriteRun none = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", "com.example.nothing");
    assertEquals(1, none.code());
    assertTrue(none.err().contains("no classes under [com.example.nothing.]"), none.err());
    RewriteRun weft = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", "io.weft.continuations");
    assertEquals(2, weft.code());
    assertTrue(weft.err().contains("must be loaded unchanged"), weft.err());
    RewriteRun noTransport = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", CLIENT, "--classpath",
        temp.toString());
    assertEquals(1, noTransport.code());
    assertTrue(noTransport.err().contains("io.weft.transport.Transport is not on the class path given with --classpath"),
        noTransport.err());
  }

  @Test
  void anExplicitClassPathWithTheTransportApiIsEnough() throws Exception {
    Path out = temp.resolve("explicit");
    RewriteRun tool = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", CLIENT + ".", "--output",
        out.toString(), "--classpath", ChildJvm.codeSource(io.weft.transport.Transport.class) + java.io.File.pathSeparator
            // slf4j-api: a client shape logs with MDC, and the transformer must resolve what it uses
            + ChildJvm.codeSource(org.slf4j.MDC.class), "--allow-problems");
    assertEquals(0, tool.code(), tool.err());
    try (URLClassLoader loader = rewrittenClients(out); SessionRunner runner = runner(server).build()) {
      assertTrue(runner.run(taskClass(loader, "FailingTask"), 6).count(Outcome.Status.SUCCEEDED) == 4);
    }
  }

  @Test
  void instrumentAndAlreadyRewrittenExcludeEachOther() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> runner(server).instrument(CLIENT).build());
    assertTrue(e.getMessage().contains("choose one"), e.getMessage());
  }

  /** The rewrite bound to this module's process-test-classes phase (see the pom) ran. */
  @Test
  void theBuildsOwnRewriteStepProducedRunnableClasses() throws Exception {
    String dir = System.getProperty("weft.rewrittenTestClasses");
    assumeTrue(dir != null, "set by the Maven build, which runs the rewrite step");
    Path out = Paths.get(dir);
    assertTrue(Files.isRegularFile(out.resolve("io/weft/continuations/testclient/LineTesterTask.class")),
        "the build's rewrite step wrote nothing to " + out);
    try (URLClassLoader loader = rewrittenClients(out); SessionRunner runner = runner(server).build()) {
      RunResult<String> result = runner.run(taskClass(loader, "LineTesterTask"), 100, 2);
      assertTrue(result.allSucceeded(), result.failures().toString());
      assertTrue(pipes.suspends() > 0);
    }
  }

  // ---- helpers

  private SessionRunner.Builder runner(PipeEchoServer echo) {
    return SessionRunner.builder().connectPacing(ConnectPacing.NONE).mode(Mode.continuations(1)).connector(pipes).address(echo.address())
        .timeout(Timeout.of(30, TimeUnit.SECONDS)).alreadyRewritten();
  }

  private Path rewriteAll() {
    Path out = temp.resolve("all");
    RewriteRun tool = RewriteRun.of("--classes", TEST_CLASSES.toString(), "--packages", CLIENT, "--output", out.toString(),
        "--allow-problems");
    assertEquals(0, tool.code(), tool.err());
    return out;
  }

  /**
   * A plain URLClassLoader over the rewritten directory. Its parent is the test class path minus
   * the client package, so the clients come from the rewritten directory and everything else
   * (Transport, Weft, JavaFlow, the pipe transport) is shared with the runner.
   */
  static URLClassLoader rewrittenClients(Path dir) throws Exception {
    ClassLoader app = BuildTimeRewriteTest.class.getClassLoader();
    ClassLoader withoutClients = new ClassLoader("without-test-clients", app) {
      @Override
      protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith(CLIENT + ".")) {
          throw new ClassNotFoundException(name);
        }
        return super.loadClass(name, resolve);
      }
    };
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, withoutClients);
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends SessionTask<String>> taskClass(ClassLoader loader, String simpleName)
      throws ClassNotFoundException {
    Class<?> c = Class.forName(CLIENT + "." + simpleName, false, loader);
    assertTrue(c.getClassLoader() instanceof URLClassLoader, c + " from " + c.getClassLoader());
    return (Class<? extends SessionTask<String>>) c;
  }



}
