package io.weft.protocols.rewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.weft.continuations.Mode;
import io.weft.continuations.RunResult;
import io.weft.continuations.SessionRunner;
import io.weft.continuations.internal.rewrite.Rewritten;
import io.weft.continuations.tools.Rewrite;
import io.weft.protocols.rewrite.frames.FrameEchoTask;
import io.weft.testsupport.ChildJvm;
import io.weft.testsupport.EchoServer;
import io.weft.transport.Connector;
import io.weft.transport.SessionTask;
import io.weft.transport.Timeout;
import io.weft.transport.mina.SuspendingMinaConnector;
import io.weft.transport.netty.SuspendingNettyConnector;
import io.weft.transport.socket.SocketConnector;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A client that reads and writes through transport-api's {@code Binary} helpers, rewritten ahead
 * of time by the {@link Rewrite} tool (as a user's build does: its own package only), loaded by a
 * plain class loader from the tool's output and run with {@code alreadyRewritten()} in
 * continuations(1) over MINA and over Netty: the same results as the compiled client in SYNC,
 * with its reads suspending inside the helpers (checked frame by frame with debugFrames).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BuildTimeRewrittenBinaryTest {
  private static final String CLIENT = FrameEchoTask.class.getPackageName();
  private static final int SESSIONS = 200;
  private static final int ROUNDS = 3;
  private static final Timeout TIMEOUT = Timeout.of(30, TimeUnit.SECONDS);

  @TempDir
  static Path temp;
  private Path rewritten;
  private String toolOut;
  private EchoServer echo;
  private List<String> inSync;

  @BeforeAll
  void rewriteAndRunTheCompiledClientInSync() throws Exception {
    rewritten = temp.resolve("rewritten");
    toolOut = rewrite(ChildJvm.codeSource(FrameEchoTask.class), rewritten);
    echo = EchoServer.tcp();
    try (SocketConnector sockets = new SocketConnector()) {
      inSync = run(SessionRunner.builder().mode(Mode.SYNC).connector(sockets), FrameEchoTask.class);
    }
  }

  @AfterAll
  void stop() {
    if (echo != null) {
      echo.close();
    }
  }

  static Stream<Arguments> continuingConnectors() {
    return Stream.of(
        Arguments.of("MINA", (Supplier<Connector>) SuspendingMinaConnector::tcp),
        Arguments.of("Netty", (Supplier<Connector>) SuspendingNettyConnector::tcp));
  }

  @Test
  void theToolWritesARewrittenCopyOfBinaryIntoTheClientPackageAndPointsTheClientAtIt() throws Exception {
    assertTrue(toolOut.contains("rewrote " + CLIENT + ".FrameEchoTask: run"), toolOut);
    assertTrue(toolOut.contains("copied io.weft.transport.binary.Binary, rewritten, to " + CLIENT + ".WeftBinary"),
        toolOut);
    assertTrue(Files.isRegularFile(rewritten.resolve(CLIENT.replace('.', '/') + "/WeftBinary.class")));
    try (URLClassLoader loader = rewrittenClients(rewritten)) {
      Class<?> copy = Class.forName(CLIENT + ".WeftBinary", false, loader);
      Rewritten mark = copy.getAnnotation(Rewritten.class);
      assertTrue(mark != null && List.of(mark.methods()).contains("readInt(Lio/weft/transport/Transport;)I"),
          "the copy must carry the rewrite's mark with its suspending methods");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("continuingConnectors")
  void theRewrittenClientSuspendsInsideBinaryInContinuationsAndAnswersAsInSync(String transport,
      Supplier<Connector> connectors) throws Exception {
    try (Connector connector = connectors.get(); URLClassLoader loader = rewrittenClients(rewritten)) {
      List<String> got = run(SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
          .alreadyRewritten().debugFrames(true), taskClass(loader));
      assertEquals(inSync, got);
      long suspends = connector instanceof SuspendingMinaConnector ? ((SuspendingMinaConnector) connector).suspends()
          : ((SuspendingNettyConnector) connector).suspends();
      assertTrue(suspends > 0, SESSIONS + " sessions over " + transport + " and not one suspended");
    }
  }

  @Test
  void rewritingTheOutputAgainChangesNothingAndItStillSuspendsInsideTheCopy() throws Exception {
    Path again = temp.resolve("again");
    String out = rewrite(rewritten, again);
    assertTrue(out.contains("0 classes rewritten"), out);
    assertTrue(out.contains("0 helper copies"), out);
    assertEquals(-1, Files.mismatch(rewritten.resolve(CLIENT.replace('.', '/') + "/FrameEchoTask.class"),
        again.resolve(CLIENT.replace('.', '/') + "/FrameEchoTask.class")));
    try (SuspendingMinaConnector connector = SuspendingMinaConnector.tcp();
         URLClassLoader loader = rewrittenClients(again)) {
      assertEquals(inSync, run(SessionRunner.builder().mode(Mode.continuations(1)).connector(connector)
          .alreadyRewritten(), taskClass(loader)));
      assertTrue(connector.suspends() > 0, "not one session suspended");
    }
  }

  @Test
  void theRewrittenClientRunsUnchangedInSyncToo() throws Exception {
    try (URLClassLoader loader = rewrittenClients(rewritten); SocketConnector sockets = new SocketConnector()) {
      assertEquals(inSync, run(SessionRunner.builder().mode(Mode.SYNC).connector(sockets), taskClass(loader)));
    }
  }

  /** Runs the tool over {@code classes} into {@code output} and returns what it printed. */
  private static String rewrite(Path classes, Path output) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code;
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
         PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      code = Rewrite.run(List.of("--classes", classes.toString(), "--packages", CLIENT, "--output",
          output.toString()), o, e);
    }
    String printed = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, code, printed + err.toString(StandardCharsets.UTF_8));
    return printed;
  }

  private List<String> run(SessionRunner.Builder builder, Class<? extends SessionTask<String>> task)
      throws Exception {
    try (SessionRunner runner = builder.address(echo.address()).timeout(TIMEOUT).build()) {
      RunResult<String> result = runner.run(task, SESSIONS, ROUNDS);
      assertTrue(result.allSucceeded(), result.failures().stream().limit(3).toList().toString());
      assertEquals(SESSIONS, result.values().size());
      assertFalse(result.values().get(0).isEmpty());
      return List.copyOf(result.values());
    }
  }

  /**
   * A plain URLClassLoader over the tool's output whose parent is the test class path minus the
   * client package: the client (and its copy of Binary) come from the output, everything else,
   * transport-api's own Binary included, from the class path as compiled.
   */
  private URLClassLoader rewrittenClients(Path dir) throws Exception {
    ClassLoader withoutClient = new ClassLoader("without-frame-client", getClass().getClassLoader()) {
      @Override
      protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (name.startsWith(CLIENT + ".")) {
          throw new ClassNotFoundException(name);
        }
        return super.loadClass(name, resolve);
      }
    };
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, withoutClient);
  }

  @SuppressWarnings("unchecked")
  private static Class<? extends SessionTask<String>> taskClass(ClassLoader loader) throws ClassNotFoundException {
    Class<?> c = Class.forName(FrameEchoTask.class.getName(), false, loader);
    assertTrue(c.getClassLoader() instanceof URLClassLoader, c + " from " + c.getClassLoader());
    return (Class<? extends SessionTask<String>>) c;
  }
}
